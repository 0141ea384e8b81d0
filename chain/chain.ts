import { defineChain, type Chain } from "viem";
import { base } from "viem/chains";

export const BASE_CHAIN_ID = 8453;

/**
 * Base as seen through a given RPC. On the local devnet anvil claims chain id 8453, so the
 * same definition serves both; viem's `base` keeps its OP-stack formatters for the real chain.
 */
export function baseChain(rpcUrl: string, { local = false } = {}): Chain {
  if (!local) return { ...base, rpcUrls: { default: { http: [rpcUrl] } } };
  return defineChain({
    id: BASE_CHAIN_ID,
    name: "Base (local devnet)",
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  });
}
