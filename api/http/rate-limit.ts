import { getConnInfo } from "@hono/node-server/conninfo";
import { getTableConfig } from "drizzle-orm/pg-core";
import type { Context, MiddlewareHandler } from "hono";
import type pg from "pg";
import { RateLimiterMemory, RateLimiterPostgres, RateLimiterRes, type RateLimiterAbstract } from "rate-limiter-flexible";
import { rateLimits } from "../db/offchain/shared";
import { tooManyRequests } from "./errors";
import { countRateLimitRejection } from "./metrics";
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

/** The budget of a request closest to its limit, shown in its RateLimit-* headers. */
interface BudgetStanding {
  limit: number;
  remaining: number;
  resetSeconds: number;
}

const standings = new WeakMap<Request, BudgetStanding>();

export const RATE_LIMIT_HEADERS = ["RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset"] as const;

/** The RateLimit-* headers (draft-ietf-httpapi-ratelimit-headers) of the request's tightest budget so far. */
function rateLimitHeaders(c: Context): Record<string, string> {
  const standing = standings.get(c.req.raw);
  if (!standing) return {};
  return {
    "RateLimit-Limit": String(standing.limit),
    "RateLimit-Remaining": String(standing.remaining),
    "RateLimit-Reset": String(standing.resetSeconds),
  };
}

/** Keeps the budget with the fewest requests left (on a tie, the later reset) and sets the headers. */
function noteStanding(c: Context, limit: number, res: RateLimiterRes): void {
  const next: BudgetStanding = {
    limit,
    remaining: Math.max(0, res.remainingPoints),
    resetSeconds: Math.max(0, Math.ceil(res.msBeforeNext / 1000)),
  };
  const current = standings.get(c.req.raw);
  if (
    current &&
    (current.remaining < next.remaining || (current.remaining === next.remaining && current.resetSeconds >= next.resetSeconds))
  ) {
    return;
  }
  standings.set(c.req.raw, next);
  for (const [name, value] of Object.entries(rateLimitHeaders(c))) c.header(name, value);
}

/** After the handler: a response built without the context's headers still gets them. */
function keepRateLimitHeaders(c: Context): void {
  if (c.res.headers.has("RateLimit-Limit")) return;
  for (const [name, value] of Object.entries(rateLimitHeaders(c))) c.header(name, value);
}

/**
 * Charges one point of `key` to `limiter`: THE place where every budget is charged (the shared
 * `rateLimit` middleware and the Evaluation API's key-issuance budget), so every response of a
 * limited route carries `RateLimit-Limit`, `RateLimit-Remaining` and `RateLimit-Reset` (seconds
 * until the window resets) of its tightest budget. Over budget: 429 `{"error":"Too many requests"}`
 * with `Retry-After` and the same headers; `budget` names it in the rejection metric.
 */
export async function chargeBudget(c: Context<AppEnv>, limiter: RateLimiterAbstract, key: string, budget: string): Promise<void> {
  let res: RateLimiterRes;
  try {
    res = await limiter.consume(key);
  } catch (rejection) {
    if (rejection instanceof RateLimiterRes) {
      noteStanding(c, limiter.points, rejection);
      countRateLimitRejection(c.var.surface, budget);
      const error = tooManyRequests(rejection.msBeforeNext / 1000);
      Object.assign(error.headers, rateLimitHeaders(c));
      throw error;
    }
    // Not a verdict but a store failure the insurance limiter could not absorb: let the request through.
    c.var.logger?.warn({ err: rejection }, "rate limiter unavailable");
    return;
  }
  noteStanding(c, limiter.points, res);
}

/** Runs `next`, then makes sure its response carries the request's RateLimit-* headers. */
export async function withRateLimitHeaders(c: Context, next: () => Promise<void>): Promise<void> {
  await next();
  keepRateLimitHeaders(c);
}

/**
 * Charges one point per request to the client IP and, once an auth middleware
 * has set `identity`, to that identity. Mount it globally for the IP budget and
 * again after the auth middleware of authenticated routes for the identity one.
 * Over budget: 429 `{"error":"Too many requests"}` with `Retry-After` seconds; every
 * answer carries the RateLimit-* headers (see `chargeBudget`).
 */
export function rateLimit(limiter: RateLimiterAbstract, options: RateLimitOptions): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (options.skip?.(c)) return next();
    const charged = chargedKeys.get(c.req.raw) ?? new Set<string>();
    chargedKeys.set(c.req.raw, charged);

    const keys: Array<[key: string, budget: string]> = [[`ip:${clientIp(c, options.trustProxy)}`, "ip"]];
    const identity = c.var.identity;
    if (identity) keys.push([`${identity.kind}:${identity.id}`, identity.kind]);

    for (const [key, budget] of keys) {
      if (charged.has(key)) continue;
      charged.add(key);
      await chargeBudget(c, limiter, key, budget);
    }
    await withRateLimitHeaders(c, next);
  };
}
