/**
 * Rate-limit budgets counted in Redis (REDIS_URL): one counter per key for every replica, each
 * request an atomic increment (rate-limiter-flexible's RateLimiterRedis runs INCR and the window's
 * expiry in one transaction), so a budget of N admits exactly N however the requests spread over
 * the replicas and however concurrent they are.
 *
 * While Redis cannot be reached, REDIS_RATE_LIMIT_FAILURE decides: `open` (default) counts each
 * replica on its own in memory (the budget is then per replica until Redis is back); `closed`
 * answers 503 with Retry-After (never 5xx otherwise). A command waits at most REDIS_COMMAND_TIMEOUT_MS,
 * and nothing is queued while disconnected, so a dead Redis never holds a request.
 */
import { Redis } from "ioredis";
import type { Logger } from "pino";
import { type RateLimiterAbstract, RateLimiterMemory, RateLimiterRedis, type RateLimiterRes } from "rate-limiter-flexible";
import type { RedisRateLimitConfig } from "../config";
import type { RateLimitSettings } from "./rate-limit";


/** What a fail-closed limiter rejects with while Redis is unreachable: the rate-limit middleware answers 503. */
export class RateLimitStoreUnavailable extends Error {
  constructor() {
    super("rate-limit store unavailable");
    this.name = "RateLimitStoreUnavailable";
  }
}

/** The insurance of a fail-closed limiter: refuses every request while the store is down (the budgets only consume). */
class RefuseWhileStoreDown extends RateLimiterMemory {
  override consume(): Promise<RateLimiterRes> {
    return Promise.reject(new RateLimitStoreUnavailable());
  }
}

export interface RedisConnectionOptions {
  /** A command without an answer after this long fails (then the failure mode applies). */
  commandTimeoutMs?: number;
  logger?: Pick<Logger, "warn" | "info">;
}

/**
 * One connection per process for every surface's limiter. Commands are not queued while it is
 * down (they fail at once), and it reconnects on its own.
 */
export function connectRateLimitRedis(url: string, options: RedisConnectionOptions = {}): Redis {
  const client = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: options.commandTimeoutMs ?? 1_000,
    connectTimeout: 2_000,
    // reconnect forever, at most every 2 s
    retryStrategy: (times) => Math.min(times * 100, 2_000),
  });
  let down = false;
  client.on("error", (error: Error) => {
    if (!down) options.logger?.warn({ error: error.message }, "rate-limit Redis unreachable");
    down = true;
  });
  client.on("ready", () => {
    if (down) options.logger?.info({}, "rate-limit Redis reachable again");
    down = false;
  });
  return client;
}

/** A surface's limiter on the shared Redis connection. */
export function createRedisRateLimiter(client: Redis, redis: RedisRateLimitConfig, settings: RateLimitSettings): RateLimiterAbstract {
  return new RateLimiterRedis({
    storeClient: client,
    keyPrefix: `${redis.keyPrefix}:${settings.keyPrefix}`,
    points: settings.points,
    duration: settings.windowSeconds,
    rejectIfRedisNotReady: true,
    insuranceLimiter:
      redis.failure === "open"
        ? new RateLimiterMemory({ keyPrefix: settings.keyPrefix, points: settings.points, duration: settings.windowSeconds })
        : new RefuseWhileStoreDown({ points: settings.points, duration: settings.windowSeconds }),
  });
}
