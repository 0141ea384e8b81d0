import type { Redis } from "ioredis";
import type pg from "pg";
import type { Logger } from "pino";
import type { RateLimiterAbstract } from "rate-limiter-flexible";
import type { PublicClient } from "viem";
import { createChainClient } from "../chain/client";
import { loadProtocolConfig, type ProtocolConfig } from "../chain/protocol-config";
import type { ApiConfig } from "./config";
import type { OffchainDb } from "./db/client";
import { processEnv } from "./env";

/** The protocol's chain as an API process reads it: the contract addresses and one read client. */
export interface ApiChain {
  protocol: ProtocolConfig;
  client: PublicClient;
}

/** What every surface's app factory is built from. */
export interface ApiDeps {
  config: ApiConfig;
  pool: pg.Pool;
  db: OffchainDb;
  logger: Logger;
  /** Defaults to a PostgreSQL-backed limiter shared by all replicas; tests may pass a memory one. */
  rateLimiter?: RateLimiterAbstract;
  /** The process's Redis connection when REDIS_URL is set: the surfaces' budgets are counted there. */
  redis?: Redis;
  /**
   * The process's chain, built once where the process is assembled (api/server.ts) and shared by
   * the surfaces and the reorg reconciler. Absent (tests, no chain configured at start): a surface
   * reads the environment's chain itself.
   */
  chain?: ApiChain;
  /** Set by the process while it drains before closing (api/server.ts): /ready answers 503. */
  lifecycle?: { draining: boolean };
}

/**
 * `protocol` with the read client of an API process, shared by every user. Unbatched: a node that
 * refuses JSON-RPC batches must not fail the surfaces' verifications, and the reorg reconciler
 * keeps its receipts concurrent (`concurrency` in flight) without batches.
 */
export function createApiChain(protocol: ProtocolConfig): ApiChain {
  return { protocol, client: createChainClient(protocol) };
}

/** The environment's chain (createApiChain), or undefined when none is configured. */
export function loadApiChain(env: NodeJS.ProcessEnv = processEnv()): ApiChain | undefined {
  try {
    return createApiChain(loadProtocolConfig(env));
  } catch {
    return undefined;
  }
}
