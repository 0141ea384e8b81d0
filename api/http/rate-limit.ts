import { getConnInfo } from "@hono/node-server/conninfo";
import { getTableConfig } from "drizzle-orm/pg-core";
import type { Context, MiddlewareHandler } from "hono";
import type pg from "pg";
import { RateLimiterMemory, RateLimiterPostgres, RateLimiterRes, type RateLimiterAbstract } from "rate-limiter-flexible";
import { rateLimits } from "../db/offchain/shared";
import { tooManyRequests } from "./errors";
import type { AppEnv } from "./types";

export interface RateLimitSettings {
  points: number;
  windowSeconds: number;
  /** Separates the budgets of different surfaces sharing one table. */
  keyPrefix: string;
}

/**
 * Counts shared by every replica, in `offchain.rate_limits` (created by the
 * migrations, hence `tableCreated`). Falls back to per-process counting while
 * the database is unreachable.
 */
export function createPostgresRateLimiter(pool: pg.Pool, settings: RateLimitSettings): RateLimiterAbstract {
  const table = getTableConfig(rateLimits);
  return new RateLimiterPostgres({
    storeClient: pool,
    storeType: "pool",
    schemaName: table.schema,
    tableName: table.name,
    tableCreated: true,
    keyPrefix: settings.keyPrefix,
    points: settings.points,
    duration: settings.windowSeconds,
    insuranceLimiter: createMemoryRateLimiter(settings),
  });
}

/** Per-process counting, for unit tests. */
export function createMemoryRateLimiter(settings: RateLimitSettings): RateLimiterAbstract {
  return new RateLimiterMemory({
    keyPrefix: settings.keyPrefix,
    points: settings.points,
    duration: settings.windowSeconds,
  });
}

export interface RateLimitOptions {
  trustProxy: boolean;
  /** Requests that are never counted (e.g. health probes). */
  skip?: (c: Context<AppEnv>) => boolean;
}

export function clientIp(c: Context, trustProxy: boolean): string {
  if (trustProxy) {
    const hops = c.req.header("x-forwarded-for")?.split(",").map((hop) => hop.trim()).filter(Boolean);
    const nearest = hops?.at(-1);
    if (nearest) return nearest;
  }
  try {
    return getConnInfo(c).remote.address ?? "unknown";
  } catch {
    return "unknown"; // not served by @hono/node-server (e.g. app.request in tests)
  }
}

// Keys already charged for a request, so the middleware can run both before
// and after authentication without charging the IP twice.
const chargedKeys = new WeakMap<Request, Set<string>>();

/**
 * Charges one point per request to the client IP and, once an auth middleware
 * has set `identity`, to that identity. Mount it globally for the IP budget and
 * again after the auth middleware of authenticated routes for the identity one.
 * Over budget: 429 `{"error":"Too many requests"}` with `Retry-After` seconds.
 */
export function rateLimit(limiter: RateLimiterAbstract, options: RateLimitOptions): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (options.skip?.(c)) return next();
    const charged = chargedKeys.get(c.req.raw) ?? new Set<string>();
    chargedKeys.set(c.req.raw, charged);

    const keys = [`ip:${clientIp(c, options.trustProxy)}`];
    const identity = c.var.identity;
    if (identity) keys.push(`${identity.kind}:${identity.id}`);

    for (const key of keys) {
      if (charged.has(key)) continue;
      charged.add(key);
      try {
        await limiter.consume(key);
      } catch (rejection) {
        if (rejection instanceof RateLimiterRes) throw tooManyRequests(rejection.msBeforeNext / 1000);
        // Not a verdict but a store failure the insurance limiter could not absorb: let the request through.
        c.var.logger?.warn({ err: rejection }, "rate limiter unavailable");
      }
    }
    await next();
  };
}
