import { drizzle, type NodePgDatabase } from "drizzle-orm/node-postgres";
import pg from "pg";
import { bindChainSchema } from "./chain";
import * as offchainSchema from "./offchain/index";

export type OffchainDb = NodePgDatabase<typeof offchainSchema>;

export interface Database {
  pool: pg.Pool;
  db: OffchainDb;
  /** Schema holding Ponder's stable views of chain state (read-only for the API). */
  chainSchemaName: string;
}

export interface CreateDbOptions {
  chainSchemaName?: string;
  maxConnections?: number;
  /** How long a request may wait for a connection before failing (default 5 s; pg's default is forever). */
  connectionTimeoutMs?: number;
  applicationName?: string;
  /** Errors of idle pooled connections (e.g. the server restarting); the pool replaces them. */
  onIdleError?: (error: Error) => void;
}

export function createDb(databaseUrl: string, options: CreateDbOptions = {}): Database {
  const pool = new pg.Pool({
    connectionString: databaseUrl,
    max: options.maxConnections ?? 10,
    connectionTimeoutMillis: options.connectionTimeoutMs ?? 5_000,
    application_name: options.applicationName ?? "datamarket-api",
  });
  pool.on("error", (error) => options.onIdleError?.(error));
  const chainSchemaName = options.chainSchemaName ?? "chain";
  bindChainSchema(chainSchemaName);
  return {
    pool,
    db: drizzle({ client: pool, schema: offchainSchema }),
    chainSchemaName,
  };
}
