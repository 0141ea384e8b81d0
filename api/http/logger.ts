import type { MiddlewareHandler } from "hono";
import type { DestinationStream, Logger } from "pino";
import { createLogger as createProcessLogger } from "../../ops/logger";
import type { LogFormat, LogLevel } from "../env";
import { isDocsAssetPath } from "./docs";
import type { AppEnv } from "./types";

/**
 * The API's logger (the project's one logger factory, ops/logger.ts): JSON lines, or readable
 * lines with `format: "pretty"` (LOG_FORMAT; the default there is pretty on a terminal). Nothing
 * secret is ever logged: keys and tokens are named by their file, not shown.
 */
export function createLogger(
  level: LogLevel,
  {
    format = "json",
    bindings = {},
    destination,
  }: { format?: LogFormat; bindings?: Record<string, unknown>; destination?: DestinationStream } = {},
): Logger {
  return createProcessLogger({ level, format, bindings, destination });
}

/**
 * Puts a request-scoped logger on the context and writes one line per request once it is answered.
 * With the level `silent` the request logger is the process logger itself (no child to build:
 * nothing is written either way) and no line is built.
 */
export function requestLogger(logger: Logger): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (!logger.isLevelEnabled("fatal")) {
      c.set("logger", logger);
      return next();
    }
    const startedAt = performance.now();
    const requestLog = logger.child({ requestId: c.get("requestId") });
    c.set("logger", requestLog);
    await next();
    logRequest(requestLog, c.req.method, c.req.path, c.res.status, startedAt, { fromCache: c.get("answeredFromCache") === true });
  };
}

/**
 * The level of an answered request's line:
 * - error for a 5xx but 503 (a deliberate answer: not ready, dependency down, not a fault of ours);
 * - debug for a read answered from the response cache: most of a busy API's requests, each
 *   counted by route and status in /metrics, and a line each would be the largest cost of such a
 *   read (bench/read-path `frontLogged`: +0.4-0.7x a bare route's CPU); `LOG_LEVEL=debug` writes them;
 * - debug for the docs page's static assets (several per page view);
 * - info for every other request.
 */
export function requestLineLevel(path: string, status: number, fromCache: boolean): "error" | "debug" | "info" {
  if (status >= 500 && status !== 503) return "error";
  return fromCache || (status < 400 && isDocsAssetPath(path)) ? "debug" : "info";
}

/**
 * The one line of an answered request (`startedAt`: performance.now() when it arrived), at
 * requestLineLevel's level. `requestId` when `requestLog` does not carry it (no child logger made
 * for one line).
 */
export function logRequest(
  requestLog: Logger,
  method: string,
  path: string,
  status: number,
  startedAt: number,
  { requestId, fromCache = false }: { requestId?: string; fromCache?: boolean } = {},
): void {
  const level = requestLineLevel(path, status, fromCache);
  if (!requestLog.isLevelEnabled(level)) return;
  const durationMs = Math.round((performance.now() - startedAt) * 10) / 10;
  // `requestId` for a logger without it: first, where a child's binding would be (the same line)
  const line = requestId === undefined ? { method, path, status, durationMs } : { requestId, method, path, status, durationMs };
  requestLog[level](line, "request");
}
