import { drizzle, type NodePgDatabase } from "drizzle-orm/node-postgres";
import pg from "pg";
import { bindChainSchema } from "./chain";
import { guardPoolClients } from "./errors";
import { ReadReplicas, replicaName } from "./read-replicas";
import { retryReadsOnStaleConnections } from "./stale-connections";
import { releaseTransactionClients } from "./transactions";
import * as offchainSchema from "./offchain/index";

export type OffchainDb = NodePgDatabase<typeof offchainSchema>;

export interface Database {
  pool: pg.Pool;
  db: OffchainDb;
  /** Schema holding Ponder's stable views of chain state (read-only for the API). */
  chainSchemaName: string;
  /** The hot standbys public reads may go to (`readReplicas` option); `pool` routes to them. */
  readReplicas?: ReadReplicas;
}

export interface CreateDbOptions {
  chainSchemaName?: string;
  maxConnections?: number;
  /** How long a request may wait for a connection before failing (default 5 s; pg's default is forever). */
  connectionTimeoutMs?: number;
  /** Server-side limit of one statement (default 10 s); a timed-out statement answers 503. */
  statementTimeoutMs?: number;
  /** Client-side limit of one query, for a server that stopped answering (default 12 s). */
  queryTimeoutMs?: number;
  applicationName?: string;
  /** Errors of pooled connections, idle or checked out (e.g. the server restarting); the pool replaces them. */
  onIdleError?: (error: Error) => void;
  /** A read sent again because its connection turned out stale (see stale-connections.ts). */
  onStaleConnectionRetry?: (error: Error) => void;
  /** DATABASE_READ_URL: hot standbys of `databaseUrl` for public reads (read-replicas.ts). */
  readReplicas?: {
    urls: string[];
    maxLagMs: number;
    pollMs: number;
    onStateChange?: ConstructorParameters<typeof ReadReplicas>[1]["onStateChange"];
  };
}

/**
 * JIT compilation off for the API's connections (a startup option: no statement of its own; an
 * `options` parameter in DATABASE_URL replaces it). The API's reads are short index walks, but on
 * the indexer's tables, which have no statistics until autovacuum analyzes them, the planner's
 * estimates cross jit_above_cost and compiling took ~220 ms of a ~25 ms read (the dataset
 * download at 100k pods).
 */
const STARTUP_OPTIONS = "-c jit=off";

function createPool(databaseUrl: string, options: CreateDbOptions, applicationName: string): pg.Pool {
  const pool = new pg.Pool({
    connectionString: databaseUrl,
    max: options.maxConnections ?? 10,
    connectionTimeoutMillis: options.connectionTimeoutMs ?? 5_000,
    statement_timeout: options.statementTimeoutMs ?? 10_000,
    query_timeout: options.queryTimeoutMs ?? 12_000,
    keepAlive: true,
    application_name: applicationName,
    options: STARTUP_OPTIONS,
  });
  pool.on("error", (error) => options.onIdleError?.(error));
  guardPoolClients(pool, { onClientError: (error) => options.onIdleError?.(error) });
  retryReadsOnStaleConnections(pool, options.onStaleConnectionRetry);
  return pool;
}

export function createDb(databaseUrl: string, options: CreateDbOptions = {}): Database {
  const applicationName = options.applicationName ?? "datamarket-api";
  const pool = createPool(databaseUrl, options, applicationName);
  let readReplicas: ReadReplicas | undefined;
  if (options.readReplicas && options.readReplicas.urls.length > 0) {
    const { urls, maxLagMs, pollMs, onStateChange } = options.readReplicas;
    // a replica's pool: the same settings, a quick connect (a down replica is skipped, not waited for)
    const replicaOptions = { ...options, connectionTimeoutMs: Math.min(options.connectionTimeoutMs ?? 5_000, 2_000) };
    const pools = urls.map((url) => ({
      name: replicaName(url),
      pool: createPool(url, replicaOptions, `${applicationName}-read`),
    }));
    readReplicas = new ReadReplicas(pools, { maxLagMs, pollMs, onStateChange });
    readReplicas.attach(pool);
  }
  const chainSchemaName = options.chainSchemaName ?? "chain";
  bindChainSchema(chainSchemaName);
  const db = drizzle({ client: pool, schema: offchainSchema });
  releaseTransactionClients(db, pool);
  return { pool, db, chainSchemaName, ...(readReplicas ? { readReplicas } : {}) };
}
