import { getConnInfo } from "@hono/node-server/conninfo";
import { getTableConfig } from "drizzle-orm/pg-core";
import type { Context, MiddlewareHandler } from "hono";
import type pg from "pg";
import {
  RateLimiterMemory,
  RateLimiterPostgres,
  RateLimiterRes,
  type RateLimiterAbstract,
} from "rate-limiter-flexible";
import { rateLimits } from "../db/offchain/shared";
import { answerHeadersDirect, setAnswerHeader } from "./answer-headers";
import { serviceUnavailable, tooManyRequests } from "./errors";
import { RateLimitStoreUnavailable } from "./redis-rate-limiter";
import { countRateLimitRejection } from "./metrics";
import type { AppEnv, BudgetStanding, RequestBudgets } from "./types";

/** Retry-After of a fail-closed 503 while the rate-limit store is down (Redis reconnects within seconds). */
const STORE_DOWN_RETRY_SECONDS = 5;

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

/** With `trustProxy`, the nearest hop of X-Forwarded-For (the one our proxy added). */
function forwardedFor(header: string | undefined): string | undefined {
  return header
    ?.split(",")
    .map((hop) => hop.trim())
    .filter(Boolean)
    .at(-1);
}

export function clientIp(c: Context, trustProxy: boolean): string {
  const forwarded = trustProxy ? forwardedFor(c.req.header("x-forwarded-for")) : undefined;
  if (forwarded) return forwarded;
  try {
    return getConnInfo(c).remote.address ?? "unknown";
  } catch {
    return "unknown"; // not served by @hono/node-server (e.g. app.request in tests)
  }
}

/** By request context (`c.var`; not by `c.req.raw`: a body limit may replace the raw request meanwhile). */
function budgetsOf(c: Context<AppEnv>): RequestBudgets {
  let budgets = c.get("rateLimitBudgets");
  if (!budgets) c.set("rateLimitBudgets", (budgets = { charged: [] }));
  return budgets;
}

export const RATE_LIMIT_HEADERS = ["RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset"] as const;

/** The RateLimit-* headers (draft-ietf-httpapi-ratelimit-headers) of a budget standing, as name, value pairs. */
const rateLimitHeaders = ({ limit, remaining, resetSeconds }: BudgetStanding) =>
  RATE_LIMIT_HEADERS.map((name, i) => [name, String([limit, remaining, resetSeconds][i])] as const);

/** Keeps the budget with the fewest requests left (on a tie, the later reset); the headers are set on the answer. */
function noteStanding(c: Context<AppEnv>, limit: number, remainingPoints: number, msBeforeNext: number): void {
  // no negative counts, the reset in whole seconds
  const standing = {
    limit,
    remaining: Math.max(0, remainingPoints),
    resetSeconds: Math.max(0, Math.ceil(msBeforeNext / 1000)),
  };
  const budgets = budgetsOf(c);
  const current = budgets.standing;
  if (
    current &&
    (current.remaining < standing.remaining ||
      (current.remaining === standing.remaining && current.resetSeconds >= standing.resetSeconds))
  ) {
    return;
  }
  budgets.standing = standing;
}

/** After the handler: the answer gets the request's RateLimit-* headers unless it has them. */
function keepRateLimitHeaders(c: Context<AppEnv>): void {
  const standing = c.get("rateLimitBudgets")?.standing;
  if (!standing) return;
  // an answer that carries its own (a 429's) keeps them: set directly, the answer's win anyway
  if (!answerHeadersDirect(c) && c.res.headers.has("RateLimit-Limit")) return;
  for (const [name, value] of rateLimitHeaders(standing)) setAnswerHeader(c, name, value);
}

/**
 * Charges one point of `key` to `limiter`: THE place where every budget is charged (the shared
 * `rateLimit` middleware and the Evaluation API's key-issuance budget), so a response of a limited
 * route carries `RateLimit-Limit`, `RateLimit-Remaining` and `RateLimit-Reset` (seconds until the
 * window resets) of its tightest budget on every answer. Over
 * budget: 429 `{"error":"Too many requests"}` with `Retry-After` and the same headers; `budget`
 * names it in the rejection metric.
 */
export function chargeBudget(
  c: Context<AppEnv>,
  limiter: RateLimiterAbstract,
  key: string,
  budget: string,
): Promise<void> {
  return limiter.consume(key).then(
    (res) => noteStanding(c, limiter.points, res.remainingPoints, res.msBeforeNext),
    (rejection: unknown) => {
      if (rejection instanceof RateLimiterRes) {
        reject(c, limiter.points, rejection.remainingPoints, rejection.msBeforeNext, budget);
      }
      if (rejection instanceof RateLimitStoreUnavailable) {
        c.get("logger")?.warn({}, "rate-limit store unavailable; refusing (REDIS_RATE_LIMIT_FAILURE=closed)");
        throw serviceUnavailable("Rate limiting is unavailable; try again shortly", STORE_DOWN_RETRY_SECONDS);
      }
      // Not a verdict but a store failure the insurance limiter could not absorb: let the request through.
      c.get("logger")?.warn({ err: rejection }, "rate limiter unavailable");
    },
  );
}

/** Over budget: throws the 429, with the request's RateLimit-* headers and Retry-After. */
function reject(
  c: Context<AppEnv>,
  limit: number,
  remainingPoints: number,
  msBeforeNext: number,
  budget: string,
): never {
  noteStanding(c, limit, remainingPoints, msBeforeNext);
  countRateLimitRejection(c.get("surface"), budget);
  const error = tooManyRequests(msBeforeNext / 1000);
  for (const [name, value] of rateLimitHeaders(budgetsOf(c).standing!)) error.headers[name] = value;
  throw error;
}

/** Runs `next`, then makes sure its response carries the request's RateLimit-* headers when they are shown. */
export async function withRateLimitHeaders(c: Context<AppEnv>, next: () => Promise<void>): Promise<void> {
  await next();
  keepRateLimitHeaders(c);
}

/**
 * Charges one point per request to the client IP and, once an auth middleware
 * has set `identity`, to that identity. Mount it globally for the IP budget and
 * again after the auth middleware of authenticated routes for the identity one.
 * Over budget: 429 `{"error":"Too many requests"}` with `Retry-After` seconds; answers carry the
 * RateLimit-* headers on every answer (see `chargeBudget`).
 */
export function rateLimit(limiter: RateLimiterAbstract, options: RateLimitOptions): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (options.skip?.(c)) return next();
    const budgets = budgetsOf(c);
    const ipKey = `ip:${clientIp(c, options.trustProxy)}`;
    if (!budgets.charged.includes(ipKey)) {
      budgets.charged.push(ipKey);
      await chargeBudget(c, limiter, ipKey, "ip");
    }
    const identity = c.get("identity");
    if (identity) {
      const key = `${identity.kind}:${identity.id}`;
      if (!budgets.charged.includes(key)) {
        budgets.charged.push(key);
        await chargeBudget(c, limiter, key, identity.kind);
      }
    }
    return withRateLimitHeaders(c, next);
  };
}
