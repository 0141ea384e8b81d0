import { getAddress, isAddress, isHex, type Address, type Hex } from "viem";
import { z } from "zod";

/** Largest `limit` the public lists accept (beyond it: 400). */
export const PUBLIC_LIST_MAX_LIMIT = 100;
/** Largest `page` the public lists accept (beyond it: 400), so offsets stay sane. */
export const PUBLIC_LIST_MAX_PAGE = 1_000_000;

/** Where the local setup keeps its generated stats bearer key when STATS_API_KEYS is unset. */
export const DEFAULT_STATS_API_KEY_FILE = ".data/platform/stats-api-key";

export const DEFAULT_CORE_PRICE_USD = "0.05";

const positiveInt = z.coerce.number().int().positive();
const decimal = z.string().regex(/^\d+(\.\d+)?$/, "must be a non-negative decimal number such as 0.05");
const address = z
  .string()
  .refine((value) => isAddress(value, { strict: false }), "must be a 0x-prefixed 20-byte address")
  .transform((value) => getAddress(value));

const environmentSchema = z.object({
  /** Comma-separated bearer keys for /stats/summary and /stats/subnets/{id}. */
  STATS_API_KEYS: z.string().optional(),
  /** Local setup only: file holding a generated key used when STATS_API_KEYS is unset. */
  STATS_API_KEY_FILE: z.string().default(DEFAULT_STATS_API_KEY_FILE),
  /** Fixed CORE price in USD (used unless CORE_PRICE_FEED_ADDRESS is set). */
  CORE_PRICE_USD: decimal.default(DEFAULT_CORE_PRICE_USD),
  /** Chainlink-style aggregator (latestRoundData/decimals) quoting CORE in USD, on the protocol's chain. */
  CORE_PRICE_FEED_ADDRESS: address.optional(),
  /** How long a feed answer is reused before the feed is read again. */
  CORE_PRICE_FEED_CACHE_SECONDS: positiveInt.default(60),
  /** A feed answer older than this (by its updatedAt) is refused as stale. */
  CORE_PRICE_FEED_MAX_AGE_SECONDS: positiveInt.default(86_400),
  /** Confirmations a txHash needs before a mint, publish or parameter update is recorded. */
  TX_MIN_CONFIRMATIONS: positiveInt.default(1),
  /** Key that sends PodManager.invalidatePod for `npm run moderate -- ban` (default on a local chain: the devnet deployer). */
  MODERATOR_PRIVATE_KEY: z
    .string()
    .refine((value) => isHex(value) && value.length === 66, "must be a 0x-prefixed 32-byte hex key")
    .optional(),
});

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
}

/** Parses the Platform API's own settings from `env`; throws one readable error listing every invalid variable. */
export function loadPlatformConfig(env: Record<string, string | undefined> = process.env): PlatformConfig {
  const defined = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ""));
  const parsed = environmentSchema.safeParse(defined);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`);
    throw new Error(`Invalid platform configuration: ${problems.join("; ")}`);
  }
  const e = parsed.data;
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
  };
}
