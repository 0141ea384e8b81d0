/**
 * Keeps one Ponder indexer running for the launcher: a crashed indexer is restarted with
 * backoff (its schema lock released first, since its process is known to be dead), and a reorg
 * deeper than the finality depth, which Ponder cannot follow, is reported with the recovery
 * command instead of being retried blindly. The API reports the lag honestly meanwhile
 * (`/ready` is 503 while the indexed head trails the chain head).
 */
import pg from "pg";
import { startIndexer, type Indexer, type StartIndexerOptions } from "./indexer";

/** Ponder's words for a chain history it cannot reconcile: a reorg beyond the finalized block. */
const DEEP_REORG = /unrecoverable .*reorg|beyond finalized block|Finalized block .* cannot move backwards/i;

export const RECOVERY_COMMAND = "npm run reindex";

/** Why an indexer process ended, from its exit signal and its last output lines. */
export type CrashCause = "out-of-memory" | "rpc" | "database" | "other";

const OUT_OF_MEMORY = /heap out of memory|Reached heap limit|Allocation failed|ERR_WORKER_OUT_OF_MEMORY|Cannot allocate memory/i;
const DATABASE_FAILURE =
  /\b(postgres|PostgreSQL|pg_|database|DbConnectionError|relation "|connection terminated|too many clients|57P0\d|53300)\b|:5432\b/i;
const RPC_FAILURE = /\b(RPC|eth_\w+|HttpRequestError|RpcRequestError|TimeoutError|fetch failed|ECONNREFUSED|ECONNRESET|socket hang up)\b/i;

/**
 * The cause of an exit: a V8 heap abort (SIGABRT, "heap out of memory") or the kernel's OOM
 * killer (SIGKILL not sent by us) is out of memory; else the last error lines decide, the
 * database first (a lost PostgreSQL connection also fails the RPC cache's reads).
 */
export function crashCause(signal: string | null, lines: readonly string[]): { cause: CrashCause; line?: string } {
  const oom = lines.findLast((line) => OUT_OF_MEMORY.test(line));
  if (oom !== undefined) return { cause: "out-of-memory", line: oom };
  if (signal === "SIGABRT" || signal === "SIGKILL") return { cause: "out-of-memory" };
  const errors = lines.filter((line) => /error|fatal|failed|refused|timed? ?out/i.test(line));
  const database = errors.findLast((line) => DATABASE_FAILURE.test(line));
  if (database !== undefined) return { cause: "database", line: database };
  const rpc = errors.findLast((line) => RPC_FAILURE.test(line));
  if (rpc !== undefined) return { cause: "rpc", line: rpc };
  return { cause: "other", line: errors.at(-1) };
}

export type SupervisorEvent =
  | {
      kind: "crashed";
      code: number | null;
      signal: string | null;
      restartInMs: number;
      cause: CrashCause;
      /** The output line that names the cause, when there is one. */
      line?: string;
      /** Restarts so far, this one included (the process's lifetime). */
      restarts: number;
    }
  | { kind: "restarted"; attempt: number }
  | { kind: "deep-reorg"; line: string; recovery: "reindexing" | "manual" };

export type SupervisorOptions = StartIndexerOptions & {
  onEvent: (event: SupervisorEvent) => void;
  /** Reindex by itself after a deep reorg (a local devnet: nothing of value is lost). */
  reindexOnDeepReorg: boolean;
  /** Backoff bounds between restarts. */
  minBackoffMs?: number;
  maxBackoffMs?: number;
};

export type SupervisedIndexer = {
  /** The indexer running now (a restart replaces it). */
  readonly current: Indexer;
  readonly url: string;
  stop(): Promise<void>;
};

/** Releases Ponder's lock on `schema` after its process died (otherwise a restart waits ~25 s). */
export async function releaseSchemaLock(databaseUrl: string, schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(
      `UPDATE ${client.escapeIdentifier(schema)}._ponder_meta SET value = jsonb_set(value, '{is_locked}', to_jsonb(0)) WHERE key = 'app'`,
    );
  } catch (error) {
    // 42P01: no meta table yet (the indexer died before creating it): nothing is locked
    if ((error as { code?: string }).code !== "42P01") throw error;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Drops the indexer's own schema (Ponder rebuilds it); the API's `offchain` schema is untouched. */
export async function dropIndexerSchema(databaseUrl: string, schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS ${client.escapeIdentifier(schema)} CASCADE`);
  } finally {
    await client.end().catch(() => undefined);
  }
}

export async function superviseIndexer(options: SupervisorOptions): Promise<SupervisedIndexer> {
  const minBackoff = options.minBackoffMs ?? 1_000;
  const maxBackoff = options.maxBackoffMs ?? 30_000;
  let stopping = false;
  let attempt = 0;
  let deepReorgLine: string | undefined;
  let restarts = 0;
  let current: Indexer;
  // the last lines of the running indexer: what its exit is classified by
  let recentLines: string[] = [];

  const launch = (clearSyncCache: boolean) =>
    startIndexer({
      ...options,
      clearSyncCache,
      onLog: (line) => {
        recentLines.push(line);
        if (recentLines.length > 60) recentLines.shift();
        if (DEEP_REORG.test(line) && !deepReorgLine) {
          deepReorgLine = line;
          // Ponder may keep running without following the head: stop it and recover below.
          void current?.stop();
        }
        options.onLog?.(line);
      },
    });

  const watch = (indexer: Indexer) => {
    const startedAt = Date.now();
    void indexer.exited.then(async ({ code, signal }) => {
      if (stopping) return;
      let clearSyncCache = false;
      if (deepReorgLine) {
        const line = deepReorgLine;
        deepReorgLine = undefined;
        options.onEvent({ kind: "deep-reorg", line, recovery: options.reindexOnDeepReorg ? "reindexing" : "manual" });
        if (options.reindexOnDeepReorg) {
          await dropIndexerSchema(options.databaseUrl, options.schema).catch(() => undefined);
          clearSyncCache = true;
        }
      }
      // a run that lasted a while starts the backoff over
      if (Date.now() - startedAt > 5 * maxBackoff) attempt = 0;
      const delay = Math.min(maxBackoff, minBackoff * 2 ** attempt);
      attempt += 1;
      restarts += 1;
      const { cause, line } = crashCause(signal, recentLines);
      recentLines = [];
      options.onEvent({ kind: "crashed", code, signal, restartInMs: delay, cause, ...(line === undefined ? {} : { line }), restarts });
      await new Promise((resolve) => setTimeout(resolve, delay));
      if (stopping) return;
      await releaseSchemaLock(options.databaseUrl, options.schema).catch(() => undefined);
      try {
        current = await launch(clearSyncCache);
        options.onEvent({ kind: "restarted", attempt });
        watch(current);
      } catch {
        // could not even spawn: try again later through the same path
        watch({ ...indexer, exited: Promise.resolve({ code: null, signal: null }) });
      }
    });
  };

  current = await launch(options.clearSyncCache ?? false);
  watch(current);
  return {
    get current() {
      return current;
    },
    get url() {
      return current.url;
    },
    async stop() {
      stopping = true;
      await current.stop();
    },
  };
}
