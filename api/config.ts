import { logFormatFrom } from "../ops/logger";
import { assertProductionSafe, parseEnv, processEnv, type CorsOrigins, type LogFormat, type LogLevel, type RawEnv } from "./env";

export type { LogFormat, LogLevel };

export interface RedisRateLimitConfig {
  url: string;
  /** Prepended to every key (`<prefix>:<surface>:<key>`), so deployments or tests sharing one Redis stay apart. */
  keyPrefix: string;
  /** While Redis is unreachable: count per replica in memory (`open`) or answer 503 (`closed`). */
  failure: "open" | "closed";
  /** A command unanswered for this long counts as Redis being down. */
  commandTimeoutMs: number;
}

/** DATABASE_READ_URL and its settings (api/db/read-replicas.ts). */
export interface ReadReplicaConfig {
  urls: string[];
  maxLagMs: number;
  pollMs: number;
}

export interface ApiConfig {
  databaseUrl: string | undefined;
  /** Hot standbys for public reads; undefined: every read on the primary. */
  readReplicas?: ReadReplicaConfig;
  /** The address the three surfaces bind (HOST, default 127.0.0.1). */
  host: string;
  ports: { platform: number; chat: number; eval: number };
  ponderUrl: string;
  ponderViewsSchema: string;
  logLevel: LogLevel;
  logFormat: LogFormat;
  rateLimit: { points: number; windowSeconds: number };
  trustProxy: boolean;
  /** REDIS_URL and its settings: the rate-limit budgets are counted in Redis (api/http/redis-rate-limiter.ts). */
  redis: RedisRateLimitConfig | undefined;
  /** CORS_ORIGINS: who may call the surfaces from a browser (see api/http/cors.ts). */
  corsOrigins: CorsOrigins;
  /** METRICS_TOKEN: the Bearer token `/metrics` requires, if any (see api/http/metrics.ts). */
  metricsToken: string | undefined;
  /** SHUTDOWN_DRAIN_MS: how long a stopping process keeps serving, not ready, closing each connection after its answer. */
  shutdownDrainMs: number;
}

/**
 * The process-wide settings of the API (see api/env.ts); throws one readable error listing every
 * invalid variable, or, in production mode, every local default left in place.
 */
export function loadConfig(env: RawEnv = processEnv()): ApiConfig {
  const e = parseEnv(env);
  assertProductionSafe(env);
  return {
    databaseUrl: e.DATABASE_URL,
    readReplicas: e.DATABASE_READ_URL?.length
      ? { urls: e.DATABASE_READ_URL, maxLagMs: e.DATABASE_READ_MAX_LAG_MS, pollMs: e.DATABASE_READ_POLL_MS }
      : undefined,
    host: e.HOST,
    ports: { platform: e.PLATFORM_PORT, chat: e.CHAT_PORT, eval: e.EVAL_PORT },
    ponderUrl: e.PONDER_URL.replace(/\/+$/, ""),
    ponderViewsSchema: e.PONDER_VIEWS_SCHEMA,
    logLevel: e.LOG_LEVEL,
    logFormat: logFormatFrom({ LOG_FORMAT: e.LOG_FORMAT }),
    rateLimit: { points: e.RATE_LIMIT_POINTS, windowSeconds: e.RATE_LIMIT_WINDOW_SECONDS },
    trustProxy: e.TRUST_PROXY,
    redis: e.REDIS_URL ? { url: e.REDIS_URL, keyPrefix: e.REDIS_KEY_PREFIX, failure: e.REDIS_RATE_LIMIT_FAILURE, commandTimeoutMs: e.REDIS_COMMAND_TIMEOUT_MS } : undefined,
    corsOrigins: e.CORS_ORIGINS,
    metricsToken: e.METRICS_TOKEN,
    shutdownDrainMs: e.SHUTDOWN_DRAIN_MS,
  };
}
