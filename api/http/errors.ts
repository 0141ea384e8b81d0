import { STATUS_CODES } from "node:http";
import type { Context, ErrorHandler, NotFoundHandler } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { ChainUnavailableError, TxVerificationError } from "../../chain/verify-tx";
import { isDatabaseUnavailable, postgresErrorCode } from "../db/errors";
import type { AppEnv } from "./types";

/** The one error body of every surface. */
export interface ErrorBody {
  error: string;
}

export const errorBody = (message: string): ErrorBody => ({ error: message });

/** An error meant for the client: its status and message are sent as they are. */
export class HttpError extends Error {
  constructor(
    readonly status: ContentfulStatusCode,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = "HttpError";
  }
}

export const badRequest = (message = "Bad request") => new HttpError(400, message);
export const unauthorized = () => new HttpError(401, "Unauthorized");
export const forbidden = (message = "Forbidden") => new HttpError(403, message);
export const notFound = (message = "Not found") => new HttpError(404, message);
export const conflict = (message = "Conflict") => new HttpError(409, message);
export const tooManyRequests = (retryAfterSeconds: number, message = "Too many requests") =>
  new HttpError(429, message, { "Retry-After": String(Math.max(1, Math.ceil(retryAfterSeconds))) });
/** Seconds a 503 asks the client to wait when its cause names no better figure. */
export const DEFAULT_RETRY_AFTER_SECONDS = 5;
/** 503 with a `Retry-After` telling the client when to come back: every 503 is one a retry may cure. */
export const serviceUnavailable = (message = "Service unavailable", retryAfterSeconds = DEFAULT_RETRY_AFTER_SECONDS) =>
  new HttpError(503, message, { "Retry-After": String(Math.max(1, Math.ceil(retryAfterSeconds))) });

// Thrown by Hono's validator when a JSON body does not parse.
const HONO_MALFORMED_JSON = "Malformed JSON in request body";

function isInvalidJsonBody(error: unknown, c: Context): boolean {
  if (error instanceof HTTPException) return error.status === 400 && error.message === HONO_MALFORMED_JSON;
  // A handler's own `await c.req.json()` on a broken body.
  return error instanceof SyntaxError && c.req.raw.bodyUsed;
}

// Safety net for constraint races a route did not pre-check; routes should still answer these themselves.
const CLIENT_FAULT_SQLSTATES: Record<string, { status: ContentfulStatusCode; message: string }> = {
  "23505": { status: 409, message: "Conflict" }, // unique_violation
  "22P02": { status: 400, message: "Invalid input" }, // invalid_text_representation
  "22003": { status: 400, message: "Invalid input" }, // numeric_value_out_of_range
  "22021": { status: 400, message: "Invalid input" }, // character_not_in_repertoire (a NUL in text)
};

function respond(c: Context, status: ContentfulStatusCode, message: string, headers: Record<string, string> = {}) {
  for (const [name, value] of Object.entries(headers)) c.header(name, value);
  return c.json(errorBody(message), status);
}

/** Chain verification errors as HTTP answers: TxVerificationError → 400, ChainUnavailableError → 503. */
export function chainErrorToHttp(error: unknown): unknown {
  if (error instanceof TxVerificationError) return new HttpError(400, error.message);
  if (error instanceof ChainUnavailableError) return serviceUnavailable(error.message, error.retryAfterSeconds);
  return error;
}

export const onError: ErrorHandler<AppEnv> = (thrown, c) => {
  const error = chainErrorToHttp(thrown);
  if (error instanceof HttpError) return respond(c, error.status, error.message, error.headers);
  if (isInvalidJsonBody(error, c)) return respond(c, 400, "Invalid JSON body");
  if (error instanceof HTTPException) {
    if (error.status === 401) return respond(c, 401, "Unauthorized");
    return respond(c, error.status, error.message || STATUS_CODES[error.status] || "Error");
  }
  const sqlState = postgresErrorCode(error);
  const clientFault = sqlState ? CLIENT_FAULT_SQLSTATES[sqlState] : undefined;
  if (clientFault) return respond(c, clientFault.status, clientFault.message);
  // a deadlock or serialization failure that a retry did not resolve (or a write, never resent):
  // nothing was applied, and the same request again will most likely succeed
  if (sqlState === "40P01" || sqlState === "40001") {
    c.get("logger")?.warn({ err: error, requestId: c.get("requestId") }, "lost a lock race");
    return respond(c, 503, "Database busy, try again", { "Retry-After": "1" });
  }
  if (isDatabaseUnavailable(error)) {
    c.get("logger")?.warn({ err: error, requestId: c.get("requestId") }, "database unavailable");
    return respond(c, 503, "Database unavailable", { "Retry-After": String(DEFAULT_RETRY_AFTER_SECONDS) });
  }

  c.get("logger")?.error({ err: error, requestId: c.get("requestId") }, "unhandled error");
  return respond(c, 500, "Internal server error");
};

/** Runs a database call; its failure is 503 {"error":"Database unavailable"}. */
export async function withDatabase<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch {
    throw serviceUnavailable("Database unavailable");
  }
}

export const onNotFound: NotFoundHandler<AppEnv> = (c) => respond(c, 404, "Not found");
