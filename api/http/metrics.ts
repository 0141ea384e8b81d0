/**
 * Prometheus metrics of the API process: ONE registry per process, served as text at `GET /metrics`
 * by each surface (so every surface's `/metrics` shows the same series; scrape one of them).
 * Series of a request carry the `surface` label (platform, chat, eval); process-wide ones (the
 * database pool, the indexer's lag, the settlement queue, the server wallet) do not.
 *
 * Counted as they happen: requests by route template (the matched route's path, never the raw
 * path), method and status with a latency histogram; rate-limit rejections; cache lookups.
 * Computed at scrape time (`collect()`), each bounded by a short timeout: pool gauges, indexer
 * lag, settlement queue, server-wallet pending transactions. A value that cannot be measured at
 * that moment (database or RPC unreachable, no checkpoint yet) is left out of that scrape (the
 * series is absent, so `absent(...)` alerts see it), never reported as a stale or made-up number.
 *
 * `/metrics` is open while HOST is a loopback address; `METRICS_TOKEN` makes it require
 * `Authorization: Bearer <token>` (and is required on any other bind).
 */
import type { Context, MiddlewareHandler } from "hono";
import { matchedRoutes } from "hono/route";
import type pg from "pg";
import { Counter, collectDefaultMetrics, Gauge, Registry } from "prom-client";
import type { IndexerProgress } from "../../ops/indexer-progress";
import type { Bulkhead } from "../lib/bulkhead";
import { readReplicas } from "../db/read-replicas";
import { secretsEqual } from "../lib/crypto";
import { bearerToken } from "./auth/bearer";
import { errorBody } from "./errors";
import type { IndexerLag } from "./indexer-lag";
import type { AppEnv, Surface } from "./types";

export type { Surface };

export const METRICS_PATH = "/metrics";
const PREFIX = "datamarket_";
/** Longest a scrape-time measurement may take before its series is left out of the scrape. */
const COLLECT_TIMEOUT_MS = 2_000;

export const metricsRegistry = new Registry();
collectDefaultMetrics({ register: metricsRegistry });

// ---- counted as they happen ----

interface LocalSeries {
  labels: Record<string, string>;
  count: number;
  sum: number;
  /** Observations per bucket (not cumulative), the last one past the largest bound. */
  buckets: number[];
}

/**
 * A counter or histogram counted in a map of this module (one lookup by a string key per event)
 * and turned into prom-client's format only when scraped. prom-client's own `inc`/`observe`
 * validate and hash the label object on every call: ~5% of a cached read's CPU in the read-path
 * bench's profile, for every request. Same series, names and text as prom-client's.
 */
type LocalValues = Array<{ labels: Record<string, string | number>; value: number; metricName?: string }>;

function registerLocal(name: string, help: string, type: "counter" | "histogram", values: () => LocalValues, reset: () => void) {
  metricsRegistry.registerMetric({
    name,
    help,
    type,
    aggregator: "sum",
    get: async () => ({ name, help, type, aggregator: "sum", values: values() }),
    reset,
  } as unknown as Parameters<Registry["registerMetric"]>[0]);
}

function localMetric(name: string, help: string, type: "counter" | "histogram", bounds: number[] = []) {
  const series = new Map<string, LocalSeries>();
  const counts = (): LocalValues => [...series.values()].map((s) => ({ labels: s.labels, value: s.count }));
  const values = (): LocalValues => {
    if (type === "counter") return counts();
    const out: LocalValues = [];
    for (const s of series.values()) {
      let cumulative = 0;
      bounds.forEach((le, i) => {
        cumulative += s.buckets[i]!;
        out.push({ labels: { ...s.labels, le }, value: cumulative, metricName: `${name}_bucket` });
      });
      out.push({ labels: { ...s.labels, le: "+Inf" }, value: s.count, metricName: `${name}_bucket` });
      out.push({ labels: s.labels, value: s.sum, metricName: `${name}_sum` });
      out.push({ labels: s.labels, value: s.count, metricName: `${name}_count` });
    }
    return out;
  };
  /** Bumped by reset: handles find their series again. */
  let generation = 0;
  const reset = () => {
    series.clear();
    generation++;
  };
  const seriesOf = (key: string, labels: () => Record<string, string>): LocalSeries => {
    let s = series.get(key);
    if (!s) series.set(key, (s = { labels: labels(), count: 0, sum: 0, buckets: new Array(bounds.length + 1).fill(0) }));
    return s;
  };
  const count = (s: LocalSeries, value: number) => {
    s.count++;
    if (type === "histogram") {
      s.sum += value;
      let i = 0;
      while (i < bounds.length && value > bounds[i]!) i++;
      s.buckets[i]!++;
    }
  };
  registerLocal(name, help, type, values, reset);
  return {
    /** Counts one event of the series `key` (its labels built only the first time). */
    add(key: string, labels: () => Record<string, string>, value = 0): void {
      count(seriesOf(key, labels), value);
    },
    /** Counts events of the series `key` (see `add`) without finding it by its key each time. */
    handle(key: string, labels: () => Record<string, string>): (value?: number) => void {
      let s = seriesOf(key, labels);
      let of = generation;
      return (value = 0) => {
        if (of !== generation) {
          s = seriesOf(key, labels);
          of = generation;
        }
        count(s, value);
      };
    },
    /** Also exposes each series' count as a counter of its own: one `add` per event feeds both. */
    countedAs(counterName: string, counterHelp: string): void {
      registerLocal(counterName, counterHelp, "counter", counts, reset);
    },
  };
}

const httpDuration = localMetric(
  `${PREFIX}http_request_duration_seconds`,
  "Time from receiving a request to its response, by surface, method, route template and status",
  "histogram",
  [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
);
httpDuration.countedAs(
  `${PREFIX}http_requests_total`,
  "HTTP requests answered, by surface, method, route template and status (route is `unmatched` when no route matched)",
);

const rateLimitRejections = new Counter({
  name: `${PREFIX}rate_limit_rejections_total`,
  help: "Requests refused with 429, by surface and the budget that ran out (ip, user, agent, wallet, eval-account, key-issuance)",
  labelNames: ["surface", "budget"] as const,
  registers: [metricsRegistry],
});

const cacheLookups = localMetric(
  `${PREFIX}cache_lookups_total`,
  "Cache lookups by surface, cache (response: public reads; count: list totals) and result (hit, stale, miss)",
  "counter",
);

const KNOWN_METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

/**
 * The route template of the request (`/api/v1/public/pods/:podId`): the path of the first
 * matched handler (not a middleware), as Hono's routePath reports it inside that handler. Known
 * even when a middleware answered first (429, cache hit); `unmatched` when no route matched.
 */
export function routeTemplate(c: Context): string {
  const handler = matchedRoutes(c).find((route) => route.method !== "ALL");
  return handler?.path ?? "unmatched";
}

/** Counts and times every request of `surface` but `/metrics` itself; sets the `surface` variable. */
export function requestMetrics(surface: Surface): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    c.set("surface", surface);
    if (c.req.path === METRICS_PATH) return next();
    const started = process.hrtime.bigint();
    let status = 500;
    try {
      await next();
      status = c.res.status;
    } finally {
      observeRequest(surface, c.req.method, status, routeTemplate(c), started);
    }
  };
}

/** Counts and times one answered request (`started`: process.hrtime.bigint() when it arrived). */
export function observeRequest(surface: Surface, requestMethod: string, status: number, route: string, started: bigint): void {
  const method = KNOWN_METHODS.has(requestMethod) ? requestMethod : "OTHER";
  const key = `${surface} ${method} ${status} ${route}`;
  // inline, unnamed: a named closure costs a `__name` call per request under tsx (keepNames)
  httpDuration.add(key, () => ({ surface, method, route, status: String(status) }), Number(process.hrtime.bigint() - started) / 1e9);
}


export function countRateLimitRejection(surface: Surface | undefined, budget: string): void {
  rateLimitRejections.inc({ surface: surface ?? "none", budget });
}

export function countCacheLookup(
  surface: Surface | undefined,
  cache: "response" | "count",
  result: "hit" | "stale" | "miss",
): void {
  const name = surface ?? "none";
  cacheLookups.add(`${name} ${cache} ${result}`, () => ({ surface: name, cache, result }));
}

// ---- measured at scrape time ----

/** `work()` within COLLECT_TIMEOUT_MS, else undefined; never throws. */
async function measured<T>(work: () => Promise<T>): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      work(),
      new Promise<undefined>((resolve) => {
        timer = setTimeout(() => resolve(undefined), COLLECT_TIMEOUT_MS);
        timer.unref();
      }),
    ]);
  } catch {
    return undefined;
  } finally {
    clearTimeout(timer);
  }
}

/** Sets the gauge, or leaves its series out of this scrape when the value is unknown. */
function report(gauge: Gauge, value: number | null | undefined, labels: Record<string, string> = {}): void {
  if (value === null || value === undefined || Number.isNaN(value)) gauge.remove(labels);
  else gauge.set(labels, value);
}

/** One measurement shared by the gauges read from it in the same scrape. */
function sharedMeasurement<T>(measure: () => Promise<T | undefined>): () => Promise<T | undefined> {
  let inFlight: Promise<T | undefined> | undefined;
  return () => {
    inFlight ??= measure().finally(() => {
      inFlight = undefined;
    });
    return inFlight;
  };
}

const pools = new Set<pg.Pool>();

/** The pools of this process (one in `npm start`, shared by the three surfaces). */
function livePools(): pg.Pool[] {
  for (const pool of pools) if (pool.ended || pool.ending) pools.delete(pool);
  return [...pools];
}

const poolSum = (read: (pool: pg.Pool) => number) => livePools().reduce((sum, pool) => sum + read(pool), 0);

new Gauge({
  name: `${PREFIX}db_pool_connections`,
  help: "Open connections of the API's PostgreSQL pool (idle and in use)",
  registers: [metricsRegistry],
  collect() {
    this.set(poolSum((pool) => pool.totalCount));
  },
});

new Gauge({
  name: `${PREFIX}db_pool_idle_connections`,
  help: "Idle connections of the API's PostgreSQL pool",
  registers: [metricsRegistry],
  collect() {
    this.set(poolSum((pool) => pool.idleCount));
  },
});

new Gauge({
  name: `${PREFIX}db_pool_waiting_requests`,
  help: "Queries waiting for a connection of the API's PostgreSQL pool",
  registers: [metricsRegistry],
  collect() {
    this.set(poolSum((pool) => pool.waitingCount));
  },
});

new Gauge({
  name: `${PREFIX}db_pool_max_connections`,
  help: "Most connections the API's PostgreSQL pool opens",
  registers: [metricsRegistry],
  collect() {
    this.set(poolSum((pool) => pool.options.max ?? 10));
  },
});

// DATABASE_READ_URL (api/db/read-replicas.ts): where the routed reads went, and each replica's state
new Gauge({
  name: `${PREFIX}db_routed_statements`,
  help: "Statements of requests sent since the process started, by source: primary, replica, fallback (a replica failed, answered by the primary); only with DATABASE_READ_URL",
  labelNames: ["source"] as const,
  registers: [metricsRegistry],
  collect() {
    const replicas = readReplicas();
    if (!replicas) return;
    this.set({ source: "primary" }, replicas.stats.primary);
    this.set({ source: "replica" }, replicas.stats.replica);
    this.set({ source: "fallback" }, replicas.stats.fallbacks);
  },
});

new Gauge({
  name: `${PREFIX}db_replica_lag_seconds`,
  help: "How long ago the primary was last at a position the read replica has replayed (-1: down)",
  labelNames: ["replica"] as const,
  registers: [metricsRegistry],
  collect() {
    for (const replica of readReplicas()?.status() ?? []) {
      this.set({ replica: replica.name }, replica.state === "down" || replica.lagMs === null ? -1 : replica.lagMs / 1000);
    }
  },
});

/** Reports the connections of `pool` (every surface registers its own; one pool is counted once). */
export function observePool(pool: pg.Pool): void {
  pools.add(pool);
}

/** Work limited by a bulkhead (api/lib/bulkhead.ts), by name: the latest registration of a name counts. */
const bulkheads = new Map<string, Pick<Bulkhead, "active" | "queued">>();

export function observeBulkhead(name: string, bulkhead: Pick<Bulkhead, "active" | "queued">): void {
  bulkheads.set(name, bulkhead);
}

new Gauge({
  name: `${PREFIX}bulkhead_tasks`,
  help: "Tasks of a bounded kind (bulkhead: dataset_downloads) running or waiting for a slot (state: active, queued); past the queue's bound, requests get 503",
  labelNames: ["bulkhead", "state"] as const,
  registers: [metricsRegistry],
  collect() {
    for (const [name, bulkhead] of bulkheads) {
      this.set({ bulkhead: name, state: "active" }, bulkhead.active);
      this.set({ bulkhead: name, state: "queued" }, bulkhead.queued);
    }
  },
});

let indexerLag: (() => Promise<IndexerLag | undefined>) | undefined;

/** The indexer's lag as /ready measures it (the probe caches a measurement for a second). */
export function observeIndexerLag(measure: () => Promise<IndexerLag>): void {
  indexerLag = sharedMeasurement(() => measured(measure));
}

new Gauge({
  name: `${PREFIX}indexer_lag_blocks`,
  help: "Blocks between the chain head (the API's RPC) and the newest block the indexer committed; absent when unknown (no RPC, no checkpoint yet)",
  registers: [metricsRegistry],
  async collect() {
    report(this, (await indexerLag?.())?.blocksBehind);
  },
});

new Gauge({
  name: `${PREFIX}indexer_lag_seconds`,
  help: "Chain time between the chain head and the newest block the indexer committed; absent when unknown (no RPC, no checkpoint yet)",
  registers: [metricsRegistry],
  async collect() {
    report(this, (await indexerLag?.())?.secondsBehind);
  },
});

const indexerRestarts = new Counter({
  name: `${PREFIX}indexer_restarts_total`,
  help: "Restarts of the indexer by the launcher's supervisor, by the cause of the crash (out-of-memory, rpc, database, other); 0 in an API that supervises no indexer",
  labelNames: ["cause"] as const,
  registers: [metricsRegistry],
});
for (const cause of ["out-of-memory", "rpc", "database", "other"]) indexerRestarts.labels({ cause }).inc(0);

/** Counts one crash of the indexer (api/http/indexer-restarts.ts records it). */
export function countIndexerRestart(cause: string): void {
  indexerRestarts.inc({ cause });
}

let indexerProgress: (() => Promise<IndexerProgress | undefined>) | undefined;

/** The indexer's progress as /ready derives it from Ponder's /metrics and /status (ops/indexer-progress.ts). */
export function observeIndexerProgress(measure: () => Promise<IndexerProgress | undefined>): void {
  indexerProgress = sharedMeasurement(() => measured(measure));
}

const progressGauge = (name: string, help: string, read: (progress: IndexerProgress) => number | null) =>
  new Gauge({
    name: `${PREFIX}indexer_${name}`,
    help,
    registers: [metricsRegistry],
    async collect() {
      const progress = await indexerProgress?.();
      report(this, progress === undefined ? undefined : read(progress));
    },
  });

progressGauge("blocks_per_second", "Blocks the indexer indexed per second over the last minute (from Ponder's /status); absent while unknown", (p) => p.blocksPerSecond);
progressGauge("events_per_second", "Events the indexer indexed per second over the last minute (Ponder's ponder_indexing_completed_events); absent while unknown", (p) => p.eventsPerSecond);
progressGauge("eta_seconds", "Seconds until the indexer reaches the chain head at its current rate (0 once there); absent while unknown", (p) => p.etaSeconds);
progressGauge("rpc_errors", "Failed RPC requests of the running indexer since it started (Ponder's ponder_rpc_request_error_total, summed); resets when it restarts", (p) => p.rpcErrors);
progressGauge("realtime", "1 once the indexer's backfill is done and it follows the chain head (Ponder's ponder_sync_is_realtime), else 0", (p) => (p.realtime ? 1 : 0));

export interface SettlementQueue {
  /** PENDING evaluations whose settlement window has closed. */
  due: number;
  /** Seconds since the oldest of them became due (0 when none is due). */
  oldestDueSeconds: number;
}

let settlementQueue: (() => Promise<SettlementQueue | undefined>) | undefined;

/** The Evaluation API's settlement queue (one indexed query per scrape). */
export function observeSettlementQueue(measure: () => Promise<SettlementQueue>): void {
  settlementQueue = sharedMeasurement(() => measured(measure));
}

new Gauge({
  name: `${PREFIX}eval_settlement_due`,
  help: "Evaluations whose settlement window has closed and that are not settled yet; absent when the database cannot be read",
  registers: [metricsRegistry],
  async collect() {
    report(this, (await settlementQueue?.())?.due);
  },
});

new Gauge({
  name: `${PREFIX}eval_settlement_lag_seconds`,
  help: "Age of the oldest due, unsettled evaluation (how far the settlement worker is behind); 0 when none is due",
  registers: [metricsRegistry],
  async collect() {
    report(this, (await settlementQueue?.())?.oldestDueSeconds);
  },
});

let serverWallet: { address: string; pending: () => Promise<number | undefined> } | undefined;

/**
 * The chat server's wallet: `pending` counts its transactions sent and not yet mined (the node's
 * pending nonce minus its latest one, so sends of every replica count).
 */
export function observeServerWallet(address: string, pending: () => Promise<number>): void {
  serverWallet = { address, pending: sharedMeasurement(() => measured(pending)) };
}

new Gauge({
  name: `${PREFIX}server_wallet_pending_transactions`,
  help: "Transactions the chat server's wallet sent that are not mined yet (pending nonce - latest nonce); absent when the RPC does not answer",
  labelNames: ["wallet"] as const,
  registers: [metricsRegistry],
  async collect() {
    this.reset();
    if (!serverWallet) return;
    report(this, await serverWallet.pending(), { wallet: serverWallet.address });
  },
});

export interface ReorgCounts {
  passes: number;
  failedPasses: number;
  byKind: Record<string, { undone: number; reconfirmed: number }>;
  lastPassAt: Date | null;
}

let reorgCounts: (() => ReorgCounts) | undefined;

/** The reorg reconciler of this process (api/reorgs): what it undid and reconfirmed, and its passes. */
export function observeReorgReconciler(counts: () => ReorgCounts): void {
  reorgCounts = counts;
}

new Counter({
  name: `${PREFIX}reorg_records_total`,
  help: "Off-chain records whose transaction left its block, by outcome (undone, or reconfirmed in the block it was mined again in) and record kind; the history is `npm run reorgs`",
  labelNames: ["outcome", "kind"] as const,
  registers: [metricsRegistry],
  collect() {
    this.reset();
    for (const [kind, counts] of Object.entries(reorgCounts?.().byKind ?? {})) {
      if (counts.undone) this.inc({ outcome: "undone", kind }, counts.undone);
      if (counts.reconfirmed) this.inc({ outcome: "reconfirmed", kind }, counts.reconfirmed);
    }
  },
});

new Counter({
  name: `${PREFIX}reorg_reconciler_passes_total`,
  help: "Passes of the reorg reconciler over the unfinalized records, by result (failed: the chain or the database did not answer)",
  labelNames: ["result"] as const,
  registers: [metricsRegistry],
  collect() {
    this.reset();
    const counts = reorgCounts?.();
    if (!counts) return;
    this.inc({ result: "ok" }, counts.passes);
    this.inc({ result: "failed" }, counts.failedPasses);
  },
});

new Gauge({
  name: `${PREFIX}reorg_reconciler_last_pass_timestamp_seconds`,
  help: "When the reorg reconciler last completed a pass (unix seconds); absent before the first",
  registers: [metricsRegistry],
  collect() {
    this.reset();
    const at = reorgCounts?.().lastPassAt;
    if (at) this.set(at.getTime() / 1000);
  },
});

// ---- the endpoint ----

export interface MetricsAccess {
  /** METRICS_TOKEN. */
  token: string | undefined;
  /** HOST, the address the surfaces bind. */
  host: string;
}

export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, "").toLowerCase();
  return bare === "localhost" || bare === "::1" || /^127(\.\d{1,3}){3}$/.test(bare) || bare === "::ffff:127.0.0.1";
}

/**
 * `GET /metrics`: the registry in Prometheus text format. With METRICS_TOKEN, a request without
 * `Authorization: Bearer <token>` is 401; without it, the endpoint answers only while the
 * surfaces bind a loopback address (403 otherwise).
 */
export function metricsHandler(access: MetricsAccess) {
  const expected = access.token;
  const open = access.token === undefined && isLoopbackHost(access.host);
  return async (c: Context) => {
    if (expected) {
      const presented = bearerToken(c.req.header("authorization"));
      if (!presented || !secretsEqual(presented, expected)) {
        c.header("WWW-Authenticate", 'Bearer realm="metrics"');
        return c.json(errorBody("Unauthorized"), 401);
      }
    } else if (!open) {
      return c.json(errorBody("Set METRICS_TOKEN to serve /metrics on a non-loopback HOST"), 403);
    }
    return c.body(await metricsRegistry.metrics(), 200, { "content-type": metricsRegistry.contentType });
  };
}
