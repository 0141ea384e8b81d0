/**
 * Runs the Ponder indexer (`ponder start`) as a child process.
 *
 *   const indexer = await startIndexer({ databaseUrl, schema: "chain_1", rpcUrl, deploymentsFile });
 *   await indexer.waitUntilReady(120_000);   // backfill done, views in `chain` published
 *   ...
 *   await indexer.stop();                    // SIGINT: Ponder unlocks its schema and exits
 *
 * Ponder keeps a lock on its schema (heartbeat in `_ponder_meta`): stop with SIGINT so it is
 * released. After a SIGKILL (`kill()`) a restart on the same schema waits for the lock to
 * expire (~25 s after the last heartbeat), then recovers from its last checkpoint.
 */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import readline from "node:readline";
import pg from "pg";
import { freePort } from "./net";
import { PROJECT_ROOT } from "./project-root";
import { RotatingLogFile } from "./rotating-log";
import { ADDRESS_ENV, RPC_URL_ENV } from "./ponder-env";
import { processEnv } from "../api/env";

export { PROJECT_ROOT };
export const DEFAULT_VIEWS_SCHEMA = "chain";
/** Ponder's in-memory row cache for indexing (PONDER_CACHE_BYTES), unless the environment sets it. */
export const DEFAULT_INDEXING_CACHE_BYTES = 64 * 1024 * 1024;
/**
 * V8 old-space limit of the indexer process (MB; INDEXER_MAX_OLD_SPACE_MB overrides, 0 = node's
 * default): a safety margin, not the bound of the working set. The working set is bounded by
 * what one block or one sync interval holds: the busy-block chain (blocks of 2,000 transactions)
 * indexes in a 160 MB heap, the 50k-event chain in 192 MB (not 160); 384 MB is twice that. With
 * node's default limit (a quarter of the machine's memory) V8 lets the heap grow before
 * collecting (573 MB RSS on the 50k chain; 424 MB with 384). Figures: bench/README.md, "Busy blocks".
 */
export const DEFAULT_MAX_OLD_SPACE_MB = 384;

function heapArgs(nodeArgs: string[], env: NodeJS.ProcessEnv): string[] {
  if (nodeArgs.some((arg) => arg.startsWith("--max-old-space-size"))) return [];
  const value = env.INDEXER_MAX_OLD_SPACE_MB?.trim();
  const mb = value ? Number(value) : DEFAULT_MAX_OLD_SPACE_MB;
  if (mb === 0) return [];
  if (!Number.isInteger(mb) || mb < 64) throw new Error(`INDEXER_MAX_OLD_SPACE_MB must be an integer >= 64, got ${value}`);
  return [`--max-old-space-size=${mb}`];
}

export type IndexerLogLevel = "silent" | "fatal" | "error" | "warn" | "info" | "debug" | "trace";

export type StartIndexerOptions = {
  databaseUrl: string;
  /** Ponder's own schema for this deployment (max 45 characters); a new one means a full reindex. */
  schema: string;
  /** Schema of the stable views the API reads (Ponder re-points them once a deployment is ready). */
  viewsSchema?: string;
  /** Base RPC URL(s), comma-separated; defaults to PONDER_RPC_URL_8453 or the deployments file. */
  rpcUrl?: string;
  /** Deployment to index; when given, contract address/START_BLOCK variables of this process are ignored. */
  deploymentsFile?: string;
  /** HTTP port of the indexer (GraphQL, /sql, /ready, /status); a free one by default. */
  port?: number;
  /** Host to bind; default 127.0.0.1. */
  hostname?: string;
  logLevel?: IndexerLogLevel;
  logFormat?: "pretty" | "json";
  /** Receives each output line (also written to `logFile` if given; to stderr with a prefix when neither is given). */
  onLog?: (line: string) => void;
  /** Appends the indexer's output to this file, renamed to `<file>.1` once it reaches `logFileMaxBytes`. */
  logFile?: string;
  /** Cap of `logFile` (default 10 MiB; see ops/rotating-log.ts). */
  logFileMaxBytes?: number;
  /** Prefix for lines written to stderr (default "[indexer] "). */
  logPrefix?: string;
  /**
   * Project root to run Ponder in (config, schema, handlers); default this project. The bench
   * points it at a checkout of an older commit to compare indexers side by side.
   */
  root?: string;
  /** Extra arguments for node before Ponder's (e.g. --cpu-prof, which NODE_OPTIONS refuses). */
  nodeArgs?: string[];
  /** Extra environment for the child (e.g. PONDER_RPC_LANES). */
  env?: Record<string, string | undefined>;
  /**
   * Delete Ponder's raw-data cache (schema ponder_sync) for chain 8453 before starting. Needed
   * when a *local* chain was restarted while the database was kept: Ponder stores raw blocks
   * and logs keyed by (chain id, block number) and would read the old chain's rows back.
   */
  clearSyncCache?: boolean;
  /**
   * Run Ponder in its own process group (default true: a terminal's Ctrl-C reaches only the
   * launcher, which stops it in order). `npm run indexer` passes false, so that a process
   * manager's signal to the group, or a SIGKILL of the service's cgroup, reaches Ponder too.
   */
  detached?: boolean;
};

export type Indexer = {
  url: string;
  port: number;
  schema: string;
  viewsSchema: string;
  process: ChildProcess;
  /**
   * Resolves once `/ready` answers 200: the historical backfill is done and the views are
   * published. Ponder backfills up to the finalized block (head - 30 on Base); the newer
   * blocks are indexed just after, in its live phase: use `waitForBlock` to catch up to a head.
   */
  waitUntilReady(timeoutMs?: number): Promise<void>;
  /** Resolves once `/status` reports block `blockNumber` (or later) indexed on Base. */
  waitForBlock(blockNumber: bigint | number, timeoutMs?: number): Promise<void>;
  /** SIGINT and wait for exit (SIGKILL after `timeoutMs`); the schema is left unlocked. */
  stop(timeoutMs?: number): Promise<void>;
  /** SIGKILL and wait for exit (simulates a crash: the schema stays locked until its heartbeat expires). */
  kill(): Promise<void>;
  /** Resolves with the exit code (or signal) once the process has exited. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
};

export type IndexerStatus = {
  /** Per chain name: the latest indexed block (Ponder's `/status`). */
  chains: Record<string, { id: number; block: { number: number; timestamp: number } }>;
  ready: boolean;
};

const CONTRACT_ENV = [...Object.values(ADDRESS_ENV), "START_BLOCK"];

function ponderBin(): string {
  const bin = path.join(PROJECT_ROOT, "node_modules", ".bin", "ponder");
  return fs.realpathSync(bin);
}

function childEnv(options: StartIndexerOptions): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...processEnv() };
  // Ponder reads these itself and they would override the CLI/config choices.
  for (const name of ["PORT", "DATABASE_SCHEMA", "DATABASE_VIEWS_SCHEMA", "DATABASE_PRIVATE_URL", "PONDER_LOG_LEVEL"]) {
    delete env[name];
  }
  if (options.deploymentsFile !== undefined) {
    for (const name of CONTRACT_ENV) delete env[name];
    env.DEPLOYMENTS_FILE = path.resolve(options.deploymentsFile);
  }
  if (options.rpcUrl !== undefined) env[RPC_URL_ENV] = options.rpcUrl;
  env.DATABASE_URL = options.databaseUrl;
  env.PONDER_TELEMETRY_DISABLED = "true";
  env.NO_COLOR = env.NO_COLOR ?? "1";
  // Ponder keeps every indexed row in memory until its cache passes a fifth of the V8 heap
  // limit (~800 MB on a large machine), so the process grew with the chain. Bounded here; the
  // tables it evicts are then read through its per-batch prefetch (and the patch keeps no rows
  // of tables nothing reads: docs/architecture.md).
  env.PONDER_CACHE_BYTES = env.PONDER_CACHE_BYTES ?? String(DEFAULT_INDEXING_CACHE_BYTES);
  for (const [name, value] of Object.entries(options.env ?? {})) {
    if (value === undefined) delete env[name];
    else env[name] = value;
  }
  return env;
}

/**
 * Removes chain 8453's rows from Ponder's raw-data cache (no-op when it does not exist yet), but
 * those of the tables named in `keep` (e.g. `rpc_request_results`: the answers of eth_call).
 */
export async function clearSyncCache(databaseUrl: string, chainId = 8453, keep: string[] = []): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ table_name: string }>(
      `SELECT c.table_name FROM information_schema.columns c
         JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
        WHERE c.table_schema = 'ponder_sync' AND c.column_name = 'chain_id' AND t.table_type = 'BASE TABLE'`,
    );
    for (const { table_name } of rows) {
      if (keep.includes(table_name)) continue;
      await client.query(`DELETE FROM ponder_sync.${client.escapeIdentifier(table_name)} WHERE chain_id = $1`, [chainId]);
    }
  } finally {
    await client.end();
  }
}

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function startIndexer(options: StartIndexerOptions): Promise<Indexer> {
  const viewsSchema = options.viewsSchema ?? DEFAULT_VIEWS_SCHEMA;
  const port = options.port ?? (await freePort());
  const hostname = options.hostname ?? "127.0.0.1";
  if (options.clearSyncCache) await clearSyncCache(options.databaseUrl);

  const env = childEnv(options);
  const args = [
    ...heapArgs(options.nodeArgs ?? [], env),
    ...(options.nodeArgs ?? []),
    ponderBin(),
    "start",
    "--schema",
    options.schema,
    "--views-schema",
    viewsSchema,
    "--port",
    String(port),
    "--hostname",
    hostname,
    "--log-level",
    options.logLevel ?? "info",
    "--log-format",
    options.logFormat ?? "pretty",
  ];
  const child = spawn(process.execPath, args, {
    cwd: options.root ?? PROJECT_ROOT,
    env,
    stdio: ["ignore", "pipe", "pipe"],
    // its own process group: a terminal's Ctrl-C reaches only the launcher, which stops it with SIGINT in turn
    detached: options.detached ?? true,
  });
  // never outlive this process (an orderly stop removes this first)
  const killOnExit = () => child.kill("SIGKILL");
  process.once("exit", killOnExit);

  const logStream = options.logFile ? new RotatingLogFile(options.logFile, options.logFileMaxBytes) : undefined;
  const prefix = options.logPrefix ?? "[indexer] ";
  const log = (line: string) => {
    if (logStream) logStream.write(line + "\n");
    else if (!options.onLog) process.stderr.write(prefix + line + "\n");
    options.onLog?.(line);
  };
  let actualPort = port;
  const recent: string[] = [];
  const onLine = (line: string) => {
    recent.push(line);
    if (recent.length > 40) recent.shift();
    // Ponder moves to the next port when the requested one is taken.
    const moved = /Created HTTP server.*?port\D{1,4}(\d+)/.exec(line);
    if (moved?.[1]) actualPort = Number(moved[1]);
    log(line);
  };
  for (const stream of [child.stdout, child.stderr]) {
    if (stream) readline.createInterface({ input: stream }).on("line", onLine);
  }

  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once("exit", (code, signal) => {
      process.removeListener("exit", killOnExit);
      logStream?.close();
      resolve({ code, signal });
    });
  });
  let hasExited = false;
  void exited.then(() => {
    hasExited = true;
  });

  const baseUrl = () => `http://${hostname.includes(":") ? `[${hostname}]` : hostname}:${actualPort}`;

  async function waitUntilReady(timeoutMs = 180_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (hasExited) {
        const { code, signal } = await exited;
        throw new Error(
          `indexer exited (code ${code}, signal ${signal}) before it was ready:\n${recent.slice(-15).join("\n")}`,
        );
      }
      try {
        const response = await fetch(`${baseUrl()}/ready`, { signal: AbortSignal.timeout(2_000) });
        if (response.status === 200) return;
      } catch {
        // not listening yet
      }
      await wait(250);
    }
    throw new Error(`indexer not ready after ${timeoutMs} ms:\n${recent.slice(-15).join("\n")}`);
  }

  async function waitForBlock(blockNumber: bigint | number, timeoutMs = 60_000): Promise<void> {
    const target = Number(blockNumber);
    const deadline = Date.now() + timeoutMs;
    let last = -1;
    while (Date.now() < deadline) {
      if (hasExited) throw new Error(`indexer exited while waiting for block ${target}:\n${recent.slice(-15).join("\n")}`);
      try {
        const response = await fetch(`${baseUrl()}/status`, { signal: AbortSignal.timeout(2_000) });
        if (response.ok) {
          const status = (await response.json()) as IndexerStatus["chains"];
          last = Math.min(...Object.values(status).map((chain) => chain.block.number));
          if (Object.keys(status).length > 0 && last >= target) return;
        }
      } catch {
        // not listening yet
      }
      await wait(100);
    }
    throw new Error(`indexer at block ${last}, not ${target}, after ${timeoutMs} ms:\n${recent.slice(-15).join("\n")}`);
  }

  async function stop(timeoutMs = 20_000): Promise<void> {
    if (hasExited) return;
    child.kill("SIGINT");
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    await exited;
    clearTimeout(timer);
  }

  async function kill(): Promise<void> {
    if (hasExited) return;
    child.kill("SIGKILL");
    await exited;
  }

  return {
    get url() {
      return baseUrl();
    },
    get port() {
      return actualPort;
    },
    schema: options.schema,
    viewsSchema,
    process: child,
    waitUntilReady,
    waitForBlock,
    stop,
    kill,
    exited,
  };
}

/** Ponder's `/status` (latest indexed block per chain) and `/ready`. */
export async function indexerStatus(url: string, timeoutMs = 2_000): Promise<IndexerStatus> {
  const base = url.replace(/\/+$/, "");
  const [status, ready] = await Promise.all([
    fetch(`${base}/status`, { signal: AbortSignal.timeout(timeoutMs) }),
    fetch(`${base}/ready`, { signal: AbortSignal.timeout(timeoutMs) }),
  ]);
  if (!status.ok) throw new Error(`GET ${base}/status: ${status.status}`);
  return {
    chains: (await status.json()) as IndexerStatus["chains"],
    ready: ready.status === 200,
  };
}
