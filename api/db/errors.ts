import pg from "pg";

/** `error`, then the errors it wraps as `cause` (drizzle, a handler), at most 5 in all. */
function* causeChain(error: unknown): Generator<unknown> {
  for (let current = error, depth = 0; current && depth < 5; depth++) {
    yield current;
    current = (current as { cause?: unknown }).cause;
  }
}

/** The PostgreSQL error behind `error`, also when wrapped (as `cause`) by drizzle or a handler. */
export function postgresError(error: unknown): pg.DatabaseError | undefined {
  for (const current of causeChain(error)) {
    if (current instanceof pg.DatabaseError) return current;
  }
  return undefined;
}

/** SQLSTATE of a PostgreSQL error, also when wrapped. */
export const postgresErrorCode = (error: unknown): string | undefined => postgresError(error)?.code;

export const isUniqueViolation = (error: unknown): boolean => postgresErrorCode(error) === "23505";

/** A relation the statement reads does not exist (e.g. the indexer's views lack a newer table). */
export const isUndefinedTable = (error: unknown): boolean => postgresErrorCode(error) === "42P01";

/** The constraint a violation hit (e.g. "verified_transactions_pkey"). */
export const violatedConstraint = (error: unknown): string | undefined => postgresError(error)?.constraint;


/**
 * Errors meaning "the database cannot be reached or cannot serve right now", as opposed to
 * a fault of the request or a bug: the caller should answer 503 and the pool heals by itself.
 */

// SQLSTATEs: class 08 (connection exception) is matched by prefix.
const UNAVAILABLE_SQLSTATES = new Set([
  "57P01", // admin_shutdown (pg_terminate_backend, fast shutdown)
  "57P02", // crash_shutdown
  "57P03", // cannot_connect_now (starting up, recovering)
  "57014", // query_canceled (statement_timeout)
  "53300", // too_many_connections
  "53400", // configuration_limit_exceeded
]);

// Socket-level codes pg surfaces as they are.
const UNAVAILABLE_NODE_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
]);

// Messages of pg and pg-pool that carry no code.
const UNAVAILABLE_MESSAGES = [
  "timeout exceeded when trying to connect", // pg-pool connectionTimeoutMillis
  "Connection terminated", // "... unexpectedly", "... due to connection timeout"
  "Query read timeout", // pg query_timeout
  "is not queryable", // a client whose connection already failed or ended
  "Cannot use a pool after calling end on the pool",
];

function isUnavailableSqlState(code: string | undefined): boolean {
  return code !== undefined && (code.startsWith("08") || UNAVAILABLE_SQLSTATES.has(code));
}

/** True when `error` (or an error it wraps as `cause`) says the database is unreachable, overloaded or timed out. */
export function isDatabaseUnavailable(error: unknown): boolean {
  // Network codes only at the top: an RPC or storage failure wraps its own (fetch failed → ECONNREFUSED).
  const topCode = (error as { code?: unknown } | null)?.code;
  if (!(error instanceof pg.DatabaseError) && typeof topCode === "string" && UNAVAILABLE_NODE_CODES.has(topCode)) {
    return (error as { syscall?: unknown }).syscall !== undefined || (error as Error).message?.includes(topCode);
  }
  for (const current of causeChain(error)) {
    if (current instanceof pg.DatabaseError) return isUnavailableSqlState(current.code);
    const message = current instanceof Error ? current.message : "";
    if (UNAVAILABLE_MESSAGES.some((text) => message.includes(text))) return true;
  }
  return false;
}

export interface PoolGuardOptions {
  /** Told about each connection error; the failed client is discarded when released. */
  onClientError?: (error: Error) => void;
}

/**
 * Every client of `pool` keeps an 'error' listener while checked out (pg-pool only listens while a
 * client is idle): a backend terminated during a transaction otherwise emits an unhandled 'error'
 * that ends the process. The client is then not queryable and pg-pool destroys it on release.
 */
export function guardPoolClients(pool: pg.Pool, options: PoolGuardOptions = {}): void {
  pool.on("connect", (client) => {
    client.on("error", (error) => options.onClientError?.(error));
    closeOnReadTimeout(client);
  });
}

/**
 * pg's `query_timeout` answers the caller but leaves the query outstanding on the connection, so
 * the next statement (a transaction's ROLLBACK) waits a whole timeout again behind it. A connection
 * whose server stopped answering is closed instead: what is queued on it fails at once, and the
 * pool replaces it.
 */
function closeOnReadTimeout(client: pg.PoolClient): void {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  (client as { query: unknown }).query = (...args: unknown[]) => {
    const result = query(...args);
    if (result && typeof (result as Promise<unknown>).then === "function") {
      // A branch of its own (it never rejects): the caller still gets the original rejection.
      (result as Promise<unknown>).then(undefined, (error: unknown) => {
        if (error instanceof Error && error.message === "Query read timeout") {
          (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
        }
      });
    }
    return result;
  };
}
