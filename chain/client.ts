import { createPublicClient, http, type PublicClient } from "viem";
import { baseChain } from "./chain";
import type { ProtocolConfig } from "./protocol-config";

/** How long verifyTransaction keeps asking for a receipt the node does not have yet, per client. */
const receiptWaits = new WeakMap<PublicClient, number>();

/**
 * A node behind the chain's head (one of a provider's pool, or a self-hosted node catching up)
 * answers "no receipt" for a transaction the caller has just seen confirmed. On a remote chain
 * verifyTransaction asks again for this long before it calls a transaction unknown (two Base
 * blocks); a local devnet never lags, so a wrong hash is refused at once there.
 */
export const DEFAULT_RECEIPT_WAIT_MS = 4_000;

/** The receipt wait of `client` (0 for clients made elsewhere). */
export function receiptWaitMs(client: PublicClient): number {
  return receiptWaits.get(client) ?? 0;
}

/**
 * Read client for the protocol's chain; a local devnet is polled fast. With `batch`, the requests
 * made in the same tick go out as one JSON-RPC batch (up to 100 calls each): for callers that ask
 * many independent questions at once, like the reorg reconciler's receipts. viem's transport
 * retries a 429 (after its Retry-After), a 5xx and a timeout twice before a read fails.
 */
export function createChainClient(
  { rpcUrl, local, receiptWaitMs: wait }: Pick<ProtocolConfig, "rpcUrl" | "local"> & { receiptWaitMs?: number },
  { batch = false }: { batch?: boolean } = {},
): PublicClient {
  const client = createPublicClient({
    chain: baseChain(rpcUrl, { local }),
    transport: http(rpcUrl, { timeout: 10_000, retryCount: 2, batch: batch ? { batchSize: 100, wait: 0 } : false }),
    pollingInterval: local ? 50 : 2_000,
  }) as PublicClient;
  receiptWaits.set(client, wait ?? (local ? 0 : DEFAULT_RECEIPT_WAIT_MS));
  return client;
}
