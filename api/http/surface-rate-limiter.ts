/**
 * The limiter of a surface's per-IP and per-identity budgets: in Redis when the process has a
 * Redis connection (REDIS_URL, exact across replicas), else counted in process and synced to
 * PostgreSQL in batches (no database write per request; see batched-rate-limiter.ts).
 */
import type { Redis } from "ioredis";
import type pg from "pg";
import type { Logger } from "pino";
import type { RateLimiterAbstract } from "rate-limiter-flexible";
import type { ApiConfig } from "../config";
import { createBatchedRateLimiter } from "./batched-rate-limiter";
import { createRedisRateLimiter } from "./redis-rate-limiter";

export interface SurfaceLimiterDeps {
  config: ApiConfig;
  pool: pg.Pool;
  logger: Logger;
  redis?: Redis;
}

export function createSurfaceRateLimiter(deps: SurfaceLimiterDeps, keyPrefix: string): RateLimiterAbstract {
  const settings = { ...deps.config.rateLimit, keyPrefix };
  if (deps.redis && deps.config.redis) return createRedisRateLimiter(deps.redis, deps.config.redis, settings);
  return createBatchedRateLimiter({ pool: deps.pool, ...settings, logger: deps.logger });
}
