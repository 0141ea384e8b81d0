/**
 * CORS of the three surfaces (Hono's `cors` middleware), from CORS_ORIGINS (api/env.ts):
 * - `*` (default): any origin may call the APIs from a browser, WITHOUT credentials. The chat
 *   server, the Evaluation API and the Platform API's agent routes authenticate with an
 *   `Authorization` header a browser client sets itself, so a web app on any origin can use them;
 *   the Platform API's `idp-token` cookie is never sent cross-origin this way.
 * - a comma-separated list of origins: only those get `Access-Control-Allow-Origin` (echoed, with
 *   `Vary: Origin`) and `Access-Control-Allow-Credentials: true`, so the platform's own web app
 *   can send the cookie; any other origin gets no CORS headers and the browser refuses it.
 * - `none`: no CORS headers at all (same-origin browsers only).
 * Credentials are never combined with `*`.
 *
 * Preflights (`OPTIONS`) are Hono's `cors`; every other request gets the same headers set on its
 * answer once it is made. (Hono's `cors` sets them on `c.res` before the handler runs, which makes
 * Hono rebuild every answer as a streamed copy: a third of a cached read's cost.)
 */
import type { MiddlewareHandler } from "hono";
import { cors } from "hono/cors";
import type { CorsOrigins } from "../env";
import { setAnswerHeader } from "./answer-headers";
import { RATE_LIMIT_HEADERS } from "./rate-limit";
import { requestHeader } from "./request-headers";

/** Request headers a browser client may send: credentials, JSON bodies, idempotent submits, revalidation, resumable streams. */
export const CORS_ALLOWED_HEADERS = [
  "Authorization",
  "Content-Type",
  "X-API-Key",
  "Idempotency-Key",
  "If-None-Match",
  "Last-Event-ID",
];

/** Response headers a browser client may read beyond the safelisted ones. */
export const CORS_EXPOSED_HEADERS = [
  ...RATE_LIMIT_HEADERS,
  "Retry-After",
  "ETag",
  "X-Request-Id",
  "X-Cache",
  "Idempotent-Replayed",
  "X-Indexed-Block",
  "X-Indexed-Block-Timestamp",
];

const PREFLIGHT_MAX_AGE_SECONDS = 600;

/**
 * The CORS headers of an answer (not a preflight) to a request from `origin`, a flat list (name,
 * value, …) in the order they are set, the same list for every request from one origin (an empty
 * one for `none`).
 */
export function corsAnswerHeaders(origins: CorsOrigins): (origin: string | undefined) => string[] {
  if (origins === "none") {
    const none: string[] = [];
    return () => none;
  }
  const exposed = ["Access-Control-Expose-Headers", CORS_EXPOSED_HEADERS.join(",")];
  if (origins === "*") {
    const headers = ["Access-Control-Allow-Origin", "*", ...exposed];
    return () => headers;
  }
  const credentialed = ["Access-Control-Allow-Credentials", "true", ...exposed, "Vary", "Origin"];
  // one list per allowed origin, made once
  const byOrigin = new Map(origins.map((allowed) => [allowed, ["Access-Control-Allow-Origin", allowed, ...credentialed]]));
  return (origin) => (origin !== undefined && byOrigin.get(origin)) || credentialed;
}

/** The CORS middleware for `origins`, or undefined for `none`. */
export function corsMiddleware(origins: CorsOrigins): MiddlewareHandler | undefined {
  if (origins === "none") return undefined;
  const preflight = cors({
    origin: origins,
    credentials: origins !== "*",
    allowMethods: ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"],
    allowHeaders: CORS_ALLOWED_HEADERS,
    exposeHeaders: CORS_EXPOSED_HEADERS,
    maxAge: PREFLIGHT_MAX_AGE_SECONDS,
  });
  const answerHeaders = corsAnswerHeaders(origins);
  return async (c, next) => {
    if (c.req.method === "OPTIONS") return preflight(c, next);
    await next();
    // Vary is appended: a handler may have set its own
    const headers = answerHeaders(requestHeader(c, "origin"));
    for (let i = 0; i < headers.length; i += 2) setAnswerHeader(c, headers[i]!, headers[i + 1]!, headers[i] === "Vary");
  };
}
