import { createPublicClient, http, type PublicClient } from "viem";
import { baseChain } from "./chain";
import type { ProtocolConfig } from "./protocol-config";

/**
 * Read client for the protocol's chain; a local devnet is polled fast. With `batch`, the requests
 * made in the same tick go out as one JSON-RPC batch (up to 100 calls each): for callers that ask
 * many independent questions at once, like the reorg reconciler's receipts.
 */
export function createChainClient(
  { rpcUrl, local }: Pick<ProtocolConfig, "rpcUrl" | "local">,
  { batch = false }: { batch?: boolean } = {},
): PublicClient {
  return createPublicClient({
    chain: baseChain(rpcUrl, { local }),
    transport: http(rpcUrl, { timeout: 10_000, retryCount: 2, batch: batch ? { batchSize: 100, wait: 0 } : false }),
    pollingInterval: local ? 50 : 2_000,
  }) as PublicClient;
}
