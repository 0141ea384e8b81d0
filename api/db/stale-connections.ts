import type pg from "pg";
import { postgresError } from "./errors";

/**
 * Failures that say the connection was gone before the statement ran, not that the database cannot
 * serve: the server ended this backend (a restart, a failover, pg_terminate_backend, a proxy's idle
 * cut) and pg-pool handed the client out before its socket had read the goodbye.
 */
const STALE_CONNECTION_SQLSTATES = new Set([
  "57P01", // admin_shutdown
  "57P02", // crash_shutdown
  "53300", // too_many_connections (refused at connect: a slot may free within the retry's delay)
]);
const STALE_CONNECTION_MESSAGES = ["Connection terminated unexpectedly", "is not queryable"];
const STALE_CONNECTION_NODE_CODES = new Set(["ECONNRESET", "EPIPE"]);

/**
 * A read that lost to concurrent DDL: picked as a deadlock's victim (40P01) or a serialization
 * failure (40001). The indexer's publish step (ops/views-publish.ts) drops and re-creates every
 * view of the stable schema in one transaction; a SELECT that locked one view and waits for
 * another it has dropped deadlocks with it. The switch has committed (or rolled back) a moment
 * later, so the same SELECT sent again answers.
 */
const RETRYABLE_READ_SQLSTATES = new Set(["40P01", "40001"]);

/** Failures after which a SELECT may be sent once more: a stale connection, or a lost lock race. */
export function isRetryableReadError(error: unknown): boolean {
  const code = postgresError(error)?.code;
  return (code !== undefined && RETRYABLE_READ_SQLSTATES.has(code)) || isStaleConnectionError(error);
}

export function isStaleConnectionError(error: unknown): boolean {
  const database = postgresError(error);
  if (database) return database.code !== undefined && (database.code.startsWith("08") || STALE_CONNECTION_SQLSTATES.has(database.code));
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === "string" && STALE_CONNECTION_NODE_CODES.has(code)) return true;
  return STALE_CONNECTION_MESSAGES.some((text) => error.message.includes(text));
}

/** A single SELECT changes nothing, so sending it again cannot apply anything twice. */
function isSelect(query: unknown): boolean {
  const text = typeof query === "string" ? query : (query as { text?: unknown } | null)?.text;
  return typeof text === "string" && /^\s*select\b/i.test(text) && !/pg_advisory/i.test(text);
}

const RETRY_DELAY_MS = 25;

/**
 * Sends a SELECT made through `pool.query` (every drizzle read outside a transaction) once more,
 * on another connection, when the first attempt failed because its connection was stale or it
 * lost a lock race to DDL (isRetryableReadError). Without
 * this, each pooled connection the server dropped costs one request a 503 while the database is
 * fine. Writes and transactions are never sent again: whether they applied is not known.
 */
export function retryReadsOnStaleConnections(pool: pg.Pool, onRetry?: (error: Error) => void): void {
  const query = pool.query.bind(pool) as (...args: unknown[]) => Promise<unknown>;
  (pool as { query: unknown }).query = (...args: unknown[]) => {
    if (typeof args[args.length - 1] === "function" || !isSelect(args[0])) return query(...args);
    return query(...args).catch(async (error: unknown) => {
      if (!isRetryableReadError(error)) throw error;
      onRetry?.(error as Error);
      await new Promise((resolve) => setTimeout(resolve, RETRY_DELAY_MS));
      return query(...args);
    });
  };
}
