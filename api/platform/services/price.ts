import { parseAbi, parseUnits, type Address, type PublicClient } from "viem";
import { toTokenNumber } from "../../../chain/units";
import { serviceUnavailable } from "../../http/errors";
import type { PriceConfig } from "../config";

/** USD prices are kept as integers with this many decimals, so that USD estimates stay exact until the end. */
export const USD_DECIMALS = 18;

export interface Price {
  /** The price as a JSON number (what `corePriceUSD` shows). */
  usd: number;
  /** The price × 10^18, exact. */
  scaled: bigint;
}

/** Where `corePriceUSD` and the USD estimates of the stats come from. */
export interface PriceSource {
  readonly kind: "fixed" | "feed";
  coreUsd(): Promise<Price>;
}

/** USD value of a raw CORE amount (18 decimals) at `price`, as a JSON number; exact up to the final rounding. */
export function usdValue(rawCore: bigint, price: Price, tokenDecimals = 18): number {
  return toTokenNumber((rawCore * price.scaled) / 10n ** BigInt(tokenDecimals), USD_DECIMALS);
}

function priceOf(scaled: bigint): Price {
  return { scaled, usd: toTokenNumber(scaled, USD_DECIMALS) };
}

/** A fixed price (CORE_PRICE_USD, e.g. "0.05" on the local chain). */
export function fixedPriceSource(usd: string): PriceSource {
  const price = priceOf(parseUnits(usd, USD_DECIMALS));
  return { kind: "fixed", coreUsd: async () => price };
}

export const AGGREGATOR_ABI = parseAbi([
  "function decimals() view returns (uint8)",
  "function latestRoundData() view returns (uint80 roundId, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound)",
]);

export interface FeedOptions {
  address: Address;
  cacheSeconds: number;
  maxAgeSeconds: number;
  /** Clock in ms (tests). */
  now?: () => number;
}

/**
 * A Chainlink-style aggregator (`latestRoundData`, `decimals`) read with viem. An answer is reused
 * for `cacheSeconds`; when the feed cannot be read (RPC down, answer ≤ 0 or older than
 * `maxAgeSeconds`) the last good answer is kept, and without one the stats answer 503.
 */
export function feedPriceSource(client: () => PublicClient, options: FeedOptions): PriceSource {
  const now = options.now ?? Date.now;
  let decimals: number | undefined;
  let cached: { price: Price; readAt: number } | undefined;
  let inFlight: Promise<Price> | undefined;

  async function read(): Promise<Price> {
    const chain = client();
    decimals ??= Number(
      await chain.readContract({ address: options.address, abi: AGGREGATOR_ABI, functionName: "decimals" }),
    );
    const [, answer, , updatedAt] = await chain.readContract({
      address: options.address,
      abi: AGGREGATOR_ABI,
      functionName: "latestRoundData",
    });
    if (answer <= 0n) throw new Error("price feed answered a non-positive price");
    const ageSeconds = now() / 1000 - Number(updatedAt);
    if (ageSeconds > options.maxAgeSeconds) throw new Error("price feed answer is stale");
    const scaled =
      decimals <= USD_DECIMALS ? answer * 10n ** BigInt(USD_DECIMALS - decimals) : answer / 10n ** BigInt(decimals - USD_DECIMALS);
    return priceOf(scaled);
  }

  return {
    kind: "feed",
    async coreUsd() {
      if (cached && now() - cached.readAt < options.cacheSeconds * 1000) return cached.price;
      inFlight ??= read().finally(() => (inFlight = undefined));
      try {
        const price = await inFlight;
        cached = { price, readAt: now() };
        return price;
      } catch {
        if (cached) return cached.price;
        throw serviceUnavailable("Price feed unavailable");
      }
    },
  };
}

export function createPriceSource(config: PriceConfig, client: () => PublicClient): PriceSource {
  if (config.source === "fixed") return fixedPriceSource(config.usd);
  return feedPriceSource(client, config);
}
