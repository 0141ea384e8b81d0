import type pg from "pg";
import type { Logger } from "pino";
import type { RateLimiterAbstract } from "rate-limiter-flexible";
import type { ApiConfig } from "./config";
import type { OffchainDb } from "./db/client";

/** What every surface's app factory is built from. */
export interface ApiDeps {
  config: ApiConfig;
  pool: pg.Pool;
  db: OffchainDb;
  logger: Logger;
  /** Defaults to a PostgreSQL-backed limiter shared by all replicas; tests may pass a memory one. */
  rateLimiter?: RateLimiterAbstract;
}
