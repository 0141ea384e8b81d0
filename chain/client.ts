import { createPublicClient, http, type PublicClient } from "viem";
import { baseChain } from "./chain";
import type { ProtocolConfig } from "./protocol-config";

/** Read client for the protocol's chain; a local devnet is polled fast. */
export function createChainClient({ rpcUrl, local }: Pick<ProtocolConfig, "rpcUrl" | "local">): PublicClient {
  return createPublicClient({
    chain: baseChain(rpcUrl, { local }),
    transport: http(rpcUrl, { timeout: 10_000, retryCount: 2 }),
    pollingInterval: local ? 50 : 2_000,
  }) as PublicClient;
}
