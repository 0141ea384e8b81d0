import { bodyLimit } from "hono/body-limit";
import type { MiddlewareHandler } from "hono";
import type { RateLimiterAbstract } from "rate-limiter-flexible";
import { RateLimiterRes } from "rate-limiter-flexible";
import { HttpError, tooManyRequests } from "../http/errors";
import { clientIp } from "../http/rate-limit";
import type { AppEnv } from "../http/types";

/** 413 `{"error":"Payload too large"}` for bodies over `maxSize` bytes, before anything parses them. */
export const jsonBodyLimit = (maxSize: number): MiddlewareHandler =>
  bodyLimit({
    maxSize,
    onError: () => {
      throw new HttpError(413, "Payload too large");
    },
  });

/**
 * A separate per-IP budget (e.g. key issuance). Not the shared `rateLimit`
 * middleware: that one charges each `ip:` key once per request across
 * limiters, so a second limiter behind it would never be charged.
 */
export function perIpBudget(limiter: RateLimiterAbstract, trustProxy: boolean): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    try {
      await limiter.consume(`ip:${clientIp(c, trustProxy)}`);
    } catch (rejection) {
      if (rejection instanceof RateLimiterRes) throw tooManyRequests(rejection.msBeforeNext / 1000);
      c.var.logger?.warn({ err: rejection }, "rate limiter unavailable");
    }
    await next();
  };
}
