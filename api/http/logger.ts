import type { MiddlewareHandler } from "hono";
import { pino, type Logger } from "pino";
import type { LogLevel } from "../config";
import type { AppEnv } from "./types";

export function createLogger(level: LogLevel, bindings: Record<string, unknown> = {}): Logger {
  return pino({ level, base: bindings });
}

/** Puts a request-scoped logger on the context and writes one line per request once it is answered. */
export function requestLogger(logger: Logger): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const startedAt = performance.now();
    const requestLog = logger.child({ requestId: c.var.requestId });
    c.set("logger", requestLog);
    await next();
    const status = c.res.status;
    const line = {
      method: c.req.method,
      path: c.req.path,
      status,
      durationMs: Math.round((performance.now() - startedAt) * 10) / 10,
    };
    // 503 is a deliberate answer (not ready, dependency down), not a fault of ours.
    if (status >= 500 && status !== 503) requestLog.error(line, "request");
    else requestLog.info(line, "request");
  };
}
