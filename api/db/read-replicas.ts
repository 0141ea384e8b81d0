/**
 * Reads on PostgreSQL hot standbys (DATABASE_READ_URL), routed by replay position.
 *
 * One place decides where a statement runs: the primary pool's `query` (every drizzle read outside
 * a transaction goes through it) is wrapped by `routeReads`. A statement runs on a replica only
 * when all of these hold, else on the primary:
 * - it is sent inside a request that `runWithReadRoute` marked as a public read (an anonymous
 *   GET/HEAD: api/http/read-route.ts); workers, writes and authenticated requests have no mark;
 * - it is a plain SELECT (no FOR UPDATE/SHARE, no advisory lock, no sequence);
 * - the replica is up, within DATABASE_READ_MAX_LAG_MS of the primary, and has replayed the
 *   request's floor: the position of the caller's last write (the read-after cookie) and of every
 *   read version the request used (read-version.ts: a version observed at position P guards data
 *   only from a source that has replayed P);
 * - the request has read from no other replica and written nothing: a request reads from one
 *   replica, and once it leaves it (failure, its floor moved past it, a write) from the primary only. Replay only moves
 *   forward, so every later read of a request sees at least what its earlier reads saw, and a
 *   cache entry filled in a request never pairs a version with older data.
 * Transactions (`pool.connect`) always run on the primary. A statement that fails on a replica is
 * sent once to the primary: a replica never turns into an error.
 *
 * One poller per process reads, every DATABASE_READ_POLL_MS, the primary's `pg_current_wal_lsn()`
 * and each replica's `pg_last_wal_replay_lsn()`. A replica's lag is how long ago the primary was
 * at the newest sampled position the replica has replayed (measured from when that sample was
 * asked for): an upper bound of its staleness, coarse by one poll interval, and 0 on an idle
 * primary (unlike pg's replay timestamps, which grow while nothing is written).
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type pg from "pg";
import { postgresError } from "./errors";
import { isStaleConnectionError } from "./stale-connections";

/** A WAL position as a number (pg_lsn text "16/B374D848"); 0n for none. */
export function parseLsn(text: string | null | undefined): bigint {
  if (!text) return 0n;
  const [high, low] = text.split("/");
  if (high === undefined || low === undefined || !/^[0-9A-Fa-f]{1,8}$/.test(high) || !/^[0-9A-Fa-f]{1,8}$/.test(low))
    return 0n;
  return (BigInt(`0x${high}`) << 32n) | BigInt(`0x${low}`);
}

export function formatLsn(lsn: bigint): string {
  return `${(lsn >> 32n).toString(16).toUpperCase()}/${(lsn & 0xffffffffn).toString(16).toUpperCase()}`;
}

/**
 * SQL: the position the statement's snapshot is at most at — the replay position on a standby,
 * the WAL write position on the primary (a commit is visible only once its record is written,
 * with synchronous_commit on, the default).
 */
export const POSITION_SQL =
  "(CASE WHEN pg_is_in_recovery() THEN pg_last_wal_replay_lsn() ELSE pg_current_wal_lsn() END)::text";

export type ReplicaState = "up" | "lagging" | "down";

export interface ReplicaStatus {
  name: string;
  state: ReplicaState;
  /** Milliseconds (null while never measured, or down). */
  lagMs: number | null;
  replayPosition: string | null;
  error?: string;
}

interface Replica {
  name: string;
  pool: pg.Pool;
  state: ReplicaState;
  lagMs: number | null;
  /** The newest position it is known to have replayed (polls, and probes run on it). */
  reached: bigint;
  error?: string;
  queries: number;
}

interface RouteContext {
  /** Replicas may serve this request's reads. */
  replicas: boolean;
  /** The least position a replica must have replayed to serve this request. */
  floor: bigint;
  /** Where its reads went so far: one replica, then the primary for good. */
  source?: Replica | "primary";
  /** A statement other than a plain SELECT, or a transaction, was sent. */
  wrote: boolean;
}

const storage = new AsyncLocalStorage<RouteContext>();

/** Runs `work` as one request: replicas allowed or not, with a floor (the caller's last write). */
export function runWithReadRoute<T>(route: { replicas: boolean; floor?: bigint }, work: () => T): T {
  return storage.run({ replicas: route.replicas, floor: route.floor ?? 0n, wrote: false }, work);
}

/** Runs `work` with every statement on the primary (e.g. /ready: it reports the primary). */
export function onPrimary<T>(work: () => T): T {
  return storage.run({ replicas: false, floor: 0n, wrote: false }, work);
}

/** Whether the current request sent a write (a statement other than a SELECT, or a transaction). */
export function requestWrote(): boolean {
  return storage.getStore()?.wrote === true;
}

/** The current request uses something observed at `position`: its later reads see at least that. */
export function readAtLeast(position: string | undefined): void {
  const route = storage.getStore();
  if (!route || position === undefined) return;
  const lsn = parseLsn(position);
  if (lsn > route.floor) route.floor = lsn;
}

/** Whether `position` is at or past the current request's floor (true outside a request). */
export function coversFloor(position: string | undefined): boolean {
  const route = storage.getStore();
  if (!route || route.floor === 0n) return true;
  return position !== undefined && parseLsn(position) >= route.floor;
}

/** A statement of the current request answered at `position`: its replica has replayed that far. */
export function sourceReached(position: string | undefined): void {
  const source = storage.getStore()?.source;
  if (!source || source === "primary" || position === undefined) return;
  const lsn = parseLsn(position);
  if (lsn > source.reached) source.reached = lsn;
}

/** Only a plain SELECT may run on a standby; anything else counts as a write. */
export function isReplicaSafe(text: string): boolean {
  return (
    /^\s*select\b/i.test(text) &&
    !/\bfor\s+(update|share|no\s+key\s+update|key\s+share)\b/i.test(text) &&
    !/pg_advisory|nextval|setval|pg_notify|set_config/i.test(text)
  );
}

function queryText(query: unknown): string | undefined {
  const text = typeof query === "string" ? query : (query as { text?: unknown } | null)?.text;
  return typeof text === "string" ? text : undefined;
}

/** A failure that says the replica cannot serve (gone, refused, shutting down), not this statement. */
function isReplicaDown(error: unknown): boolean {
  if (isStaleConnectionError(error)) return true;
  const database = postgresError(error);
  if (database?.code) return database.code.startsWith("57P") || database.code.startsWith("53");
  return true; // no SQLSTATE: the connection (refused, timed out, reset)
}

/** The name /ready shows: host, port and database, never the credentials. */
export function replicaName(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname}:${parsed.port || "5432"}${parsed.pathname}`;
  } catch {
    return "replica";
  }
}

export interface ReadReplicasOptions {
  maxLagMs: number;
  pollMs: number;
  now?: () => number;
  onStateChange?: (status: ReplicaStatus) => void;
}

export interface ReadStats {
  /** Statements answered by the primary, by replicas, and sent to the primary after a replica failed. */
  primary: number;
  replica: number;
  fallbacks: number;
  /** Poll rounds and the statements they sent (one to the primary, one per replica). */
  polls: number;
  pollQueries: number;
}

export class ReadReplicas {
  readonly replicas: Replica[];
  readonly stats: ReadStats = { primary: 0, replica: 0, fallbacks: 0, polls: 0, pollQueries: 0 };
  readonly maxLagMs: number;
  private readonly pollMs: number;
  private readonly now: () => number;
  /** The primary's positions, each with when it was asked for, oldest first. */
  private samples: { at: number; lsn: bigint }[] = [];
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private next = 0;
  private primaryQuery: ((text: string) => Promise<pg.QueryResult>) | undefined;

  constructor(
    pools: { name: string; pool: pg.Pool }[],
    private readonly options: ReadReplicasOptions,
  ) {
    this.replicas = pools.map(({ name, pool }) => ({
      name,
      pool,
      state: "down",
      lagMs: null,
      reached: 0n,
      queries: 0,
      error: "not polled yet",
    }));
    this.maxLagMs = options.maxLagMs;
    this.pollMs = options.pollMs;
    this.now = options.now ?? (() => performance.now());
  }

  /** Installs the routing on `primary` (see the file's comment) and starts the poller. */
  attach(primary: pg.Pool): void {
    const query = primary.query.bind(primary) as (...args: unknown[]) => Promise<unknown>;
    this.primaryQuery = (text) => query(text) as Promise<pg.QueryResult>;
    const toPrimary = (args: unknown[]) => {
      this.stats.primary++;
      return query(...args);
    };
    (primary as { query: unknown }).query = (...args: unknown[]) => {
      const route = storage.getStore();
      if (!route || typeof args[args.length - 1] === "function") return query(...args);
      const text = queryText(args[0]);
      if (text === undefined || !isReplicaSafe(text)) {
        // the request's later reads must see what it wrote: the primary from now on
        route.wrote = true;
        route.source = "primary";
        return query(...args);
      }
      const replica = route.replicas ? this.sourceFor(route) : undefined;
      if (!replica) return toPrimary(args);
      replica.queries++;
      this.stats.replica++;
      return (replica.pool.query as (...a: unknown[]) => Promise<unknown>)(...args).catch((error: unknown) => {
        // once on the primary, for this request from now on
        route.source = "primary";
        this.stats.fallbacks++;
        if (isReplicaDown(error)) this.markDown(replica, error);
        return toPrimary(args);
      });
    };
    const connect = primary.connect.bind(primary) as (...args: unknown[]) => unknown;
    (primary as { connect: unknown }).connect = (...args: unknown[]) => {
      const route = storage.getStore();
      if (route) {
        route.wrote = true;
        route.source = "primary";
      }
      return connect(...args);
    };
    this.schedule(0);
  }

  private usable(replica: Replica, floor: bigint): boolean {
    return replica.state === "up" && replica.reached >= floor;
  }

  private sourceFor(route: RouteContext): Replica | undefined {
    if (route.source === "primary") return undefined;
    if (route.source) {
      if (this.usable(route.source, route.floor)) return route.source;
      route.source = "primary";
      return undefined;
    }
    const count = this.replicas.length;
    for (let i = 0; i < count; i++) {
      const replica = this.replicas[(this.next + i) % count]!;
      if (this.usable(replica, route.floor)) {
        this.next = (this.next + i + 1) % count;
        route.source = replica;
        return replica;
      }
    }
    route.source = "primary";
    return undefined;
  }

  private markDown(replica: Replica, error: unknown): void {
    const message = error instanceof Error ? error.message : String(error);
    const changed = replica.state !== "down";
    replica.state = "down";
    replica.lagMs = null;
    replica.error = message;
    if (changed) this.options.onStateChange?.(this.statusOf(replica));
  }

  private statusOf(replica: Replica): ReplicaStatus {
    return {
      name: replica.name,
      state: replica.state,
      lagMs: replica.lagMs === null ? null : Math.round(replica.lagMs),
      replayPosition: replica.reached === 0n ? null : formatLsn(replica.reached),
      ...(replica.error === undefined ? {} : { error: replica.error }),
    };
  }

  status(): ReplicaStatus[] {
    return this.replicas.map((replica) => this.statusOf(replica));
  }

  private schedule(delay: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      void this.poll().finally(() => this.schedule(this.pollMs));
    }, delay);
    this.timer.unref();
  }

  /** One round of the poller (exported for tests). */
  async poll(): Promise<void> {
    if (!this.primaryQuery) return;
    const primaryQuery = this.primaryQuery;
    const askedAt = this.now();
    const timeoutMs = Math.max(1_000, this.pollMs * 4);
    this.stats.polls++;
    this.stats.pollQueries += 1 + this.replicas.length;
    const primary = withTimeout(primaryQuery("SELECT pg_current_wal_lsn()::text AS lsn"), timeoutMs).then(
      (result) => parseLsn((result.rows[0] as { lsn?: string } | undefined)?.lsn),
      () => undefined,
    );
    const replicas = this.replicas.map((replica) =>
      withTimeout(
        replica.pool.query<{ recovery: boolean; lsn: string | null }>(
          "SELECT pg_is_in_recovery() AS recovery, pg_last_wal_replay_lsn()::text AS lsn",
        ),
        timeoutMs,
      ).then(
        (result) => ({ replica, row: result.rows[0] }),
        (error: unknown) => ({ replica, error }),
      ),
    );
    const lsn = await primary;
    if (lsn !== undefined) {
      this.samples.push({ at: askedAt, lsn });
      const keepFrom = askedAt - this.maxLagMs - 4 * this.pollMs;
      while (this.samples.length > 2 && this.samples[0]!.at < keepFrom) this.samples.shift();
    }
    for (const answer of await Promise.all(replicas)) {
      const { replica } = answer;
      if ("error" in answer) {
        this.markDown(replica, answer.error);
        continue;
      }
      if (!answer.row?.recovery) {
        this.markDown(replica, new Error("not a standby (not in recovery): left out"));
        continue;
      }
      const replayed = parseLsn(answer.row.lsn);
      if (replayed > replica.reached) replica.reached = replayed;
      replica.lagMs = this.lagOf(replica.reached, askedAt);
      const state: ReplicaState = replica.lagMs > this.maxLagMs ? "lagging" : "up";
      const changed = state !== replica.state;
      replica.state = state;
      replica.error = undefined;
      if (changed) this.options.onStateChange?.(this.statusOf(replica));
    }
  }

  /** How long before `at` the primary was last sampled at or before `replayed` (see the file's comment). */
  private lagOf(replayed: bigint, at: number): number {
    for (let i = this.samples.length - 1; i >= 0; i--) {
      const sample = this.samples[i]!;
      if (sample.lsn <= replayed) return Math.max(0, at - sample.at);
    }
    // behind every sample kept: at least as old as the oldest
    const oldest = this.samples[0];
    return oldest ? Math.max(this.maxLagMs + 1, at - oldest.at) : 0;
  }

  /** The primary's position now (after a write committed): what the caller's next reads must see. */
  async primaryPosition(): Promise<string | undefined> {
    if (!this.primaryQuery) return undefined;
    const result = await this.primaryQuery("SELECT pg_current_wal_lsn()::text AS lsn");
    return (result.rows[0] as { lsn?: string } | undefined)?.lsn;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await Promise.all(this.replicas.map((replica) => replica.pool.end().catch(() => undefined)));
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

let processReplicas: ReadReplicas | undefined;

/** The process's replicas (api/server.ts), for /ready and the read-after cookie; undefined without DATABASE_READ_URL. */
export function readReplicas(): ReadReplicas | undefined {
  return processReplicas;
}

export function setReadReplicas(replicas: ReadReplicas | undefined): void {
  processReplicas = replicas;
}
