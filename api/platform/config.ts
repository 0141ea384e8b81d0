import type { Address, Hex } from "viem";
import {
  DEFAULT_CORE_PRICE_USD,
  DEFAULT_STATS_API_KEY_FILE,
  DEFAULT_SUBSCRIPTION_PACKAGES,
  parseEnv,
  processEnv,
  type RawEnv,
  type SubscriptionPackageConfig,
} from "../env";

/** Largest `limit` the public lists accept (beyond it: 400). */
export const PUBLIC_LIST_MAX_LIMIT = 100;
/** Largest `page` the public lists accept (beyond it: 400), so offsets stay sane. */
export const PUBLIC_LIST_MAX_PAGE = 1_000_000;

export { DEFAULT_CORE_PRICE_USD, DEFAULT_STATS_API_KEY_FILE };

export type PriceConfig =
  | { source: "fixed"; usd: string }
  | { source: "feed"; address: Address; cacheSeconds: number; maxAgeSeconds: number };

export interface PlatformConfig {
  /** Keys from STATS_API_KEYS; empty when unset (the local setup then generates one, see context.ts). */
  statsApiKeys: string[];
  statsApiKeyFile: string;
  price: PriceConfig;
  txMinConfirmations: number;
  publicListMaxLimit: number;
  moderatorPrivateKey: Hex | undefined;
  /** GET /events (EVENTS_MAX_STREAMS, EVENTS_POLL_INTERVAL_MS, EVENTS_KEEPALIVE_SECONDS). */
  events: EventStreamConfig;
  /** READ_CACHE and READ_VERSION_MAX_AGE_MS (see read-cache.ts). */
  readCache: { enabled: boolean; versionMaxAgeMs: number };
  /** The WEBHOOK_* settings (see docs/webhooks.md). */
  webhooks: WebhookConfig;
}

export interface WebhookConfig {
  workerEnabled: boolean;
  allowPrivate: boolean;
  pollIntervalMs: number;
  timeoutMs: number;
  retryBaseMs: number;
  retryMaxDelayMs: number;
  retryForMs: number;
  maxFailures: number;
  maxPerAgent: number;
}

export interface EventStreamConfig {
  maxStreams: number;
  pollIntervalMs: number;
  keepAliveMs: number;
}

/** The Platform API's own settings (see api/env.ts); throws one readable error listing every invalid variable. */
export function loadPlatformConfig(env: RawEnv = processEnv()): PlatformConfig {
  const e = parseEnv(env);
  const statsApiKeys = (e.STATS_API_KEYS ?? "")
    .split(",")
    .map((key) => key.trim())
    .filter((key) => key.length > 0);
  const price: PriceConfig = e.CORE_PRICE_FEED_ADDRESS
    ? {
        source: "feed",
        address: e.CORE_PRICE_FEED_ADDRESS,
        cacheSeconds: e.CORE_PRICE_FEED_CACHE_SECONDS,
        maxAgeSeconds: e.CORE_PRICE_FEED_MAX_AGE_SECONDS,
      }
    : { source: "fixed", usd: e.CORE_PRICE_USD };
  return {
    statsApiKeys,
    statsApiKeyFile: e.STATS_API_KEY_FILE,
    price,
    txMinConfirmations: e.TX_MIN_CONFIRMATIONS,
    publicListMaxLimit: PUBLIC_LIST_MAX_LIMIT,
    moderatorPrivateKey: e.MODERATOR_PRIVATE_KEY as Hex | undefined,
    events: {
      maxStreams: e.EVENTS_MAX_STREAMS,
      pollIntervalMs: e.EVENTS_POLL_INTERVAL_MS,
      keepAliveMs: e.EVENTS_KEEPALIVE_SECONDS * 1000,
    },
    readCache: { enabled: e.READ_CACHE === "on", versionMaxAgeMs: e.READ_VERSION_MAX_AGE_MS },
    webhooks: {
      workerEnabled: e.WEBHOOK_WORKER_ENABLED,
      allowPrivate: e.WEBHOOK_ALLOW_PRIVATE,
      pollIntervalMs: e.WEBHOOK_POLL_INTERVAL_MS,
      timeoutMs: e.WEBHOOK_TIMEOUT_MS,
      retryBaseMs: e.WEBHOOK_RETRY_BASE_MS,
      retryMaxDelayMs: e.WEBHOOK_RETRY_MAX_DELAY_MS,
      retryForMs: e.WEBHOOK_RETRY_FOR_MS,
      maxFailures: e.WEBHOOK_MAX_FAILURES,
      maxPerAgent: e.WEBHOOK_MAX_PER_AGENT,
    },
  };
}

export type { SubscriptionPackageConfig };

/** Engagement and agent settings of the Platform API. */
export interface AgentsConfig {
  /** SUBSCRIPTION_PACKAGES: JSON list of `{ id, subscriptionDays }`. */
  subscriptionPackages: SubscriptionPackageConfig[];
  /** ORDER_MIN_CONFIRMATIONS: confirmations a package payment needs before its order is VERIFIED. */
  orderMinConfirmations: number;
  /** DATASET_MAX_ITEMS: cap on each array of a dataset download. */
  datasetMaxItems: number;
  /** DATASET_MAX_CONCURRENT and DATASET_MAX_QUEUED: downloads built at once per process, and waiting. */
  datasetDownloads: { concurrency: number; maxQueued: number };
  /** PUBLIC_VOTES_MAX_ITEMS: cap on the public vote list of one pod and epoch. */
  publicVotesMaxItems: number;
  /** COMMENTS_MAX_ITEMS: cap on a pod's comment list (the most recent, oldest first). */
  commentsMaxItems: number;
}

/** Engagement and agent settings (see api/env.ts); throws one readable error listing every invalid variable. */
export function loadAgentsConfig(env: RawEnv = processEnv()): AgentsConfig {
  const e = parseEnv(env);
  return {
    subscriptionPackages: e.SUBSCRIPTION_PACKAGES ?? DEFAULT_SUBSCRIPTION_PACKAGES,
    orderMinConfirmations: e.ORDER_MIN_CONFIRMATIONS,
    datasetMaxItems: e.DATASET_MAX_ITEMS,
    datasetDownloads: { concurrency: e.DATASET_MAX_CONCURRENT, maxQueued: e.DATASET_MAX_QUEUED },
    publicVotesMaxItems: e.PUBLIC_VOTES_MAX_ITEMS,
    commentsMaxItems: e.COMMENTS_MAX_ITEMS,
  };
}
