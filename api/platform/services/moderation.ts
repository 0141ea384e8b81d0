/**
 * Moderation (operator command `npm run moderate`): banning a pod invalidates it on chain
 * (PodManager.invalidatePod, sent by a MODERATOR_ROLE key) and marks its record banned with the
 * reason, which hides it from the public lists; pods minted with the slop check skipped can be listed.
 */
import { createWalletClient, http, type Account, type Hash } from "viem";
import { PodManagerAbi } from "../../../abis";
import { baseChain } from "../../../chain/chain";
import type { OffchainDb } from "../../db/client";
import { isTokenIdRef } from "../../db/refs";
import type { ApiChain } from "../../deps";
import { findPodDraftByRef, listSlopCheckSkippedPods, setPodBanned, type PodWithChain } from "../repositories/pods";

export const MAX_BAN_REASON_LENGTH = 500;

export class ModerationError extends Error {}

export interface ModerationDeps {
  db: OffchainDb;
  chain: ApiChain;
  /** Holds PodManager's MODERATOR_ROLE. */
  moderator: Account;
}

export interface BanResult {
  /** The pod's id, or null for a chain-only pod (no metadata to mark). */
  podId: string | null;
  tokenId: bigint | null;
  /** `sent`: invalidatePod sent now; `already`: invalid on chain before; `not-minted`: nothing on chain. */
  onChain: "sent" | "already" | "not-minted";
  txHash: Hash | null;
}

/** Bans a pod given by its id (uuid) or on-chain tokenId. */
export async function banPod(
  { db, chain, moderator }: ModerationDeps,
  { pod, reason }: { pod: string; reason: string },
): Promise<BanResult> {
  const why = reason.trim();
  if (why.length === 0 || why.length > MAX_BAN_REASON_LENGTH) {
    throw new ModerationError(`--reason must be 1 to ${MAX_BAN_REASON_LENGTH} characters`);
  }
  const draft = await findPodDraftByRef(db, pod.trim());
  let tokenId: bigint | null = draft?.tokenId ? BigInt(draft.tokenId) : null;
  if (!draft) {
    if (!isTokenIdRef(pod.trim())) throw new ModerationError(`Unknown pod: ${pod}`);
    tokenId = BigInt(pod.trim()); // a chain-only pod: invalidate it all the same
  }

  let onChain: BanResult["onChain"] = "not-minted";
  let txHash: Hash | null = null;
  if (tokenId !== null) {
    const address = chain.protocol.contracts.PodManager.address;
    let current: { invalidFromEpoch: bigint };
    try {
      current = await chain.client.readContract({ address, abi: PodManagerAbi, functionName: "getPod", args: [tokenId] });
    } catch (error) {
      throw new ModerationError(`Pod ${tokenId} could not be read on chain: ${(error as Error).message.split("\n")[0]}`);
    }
    if (current.invalidFromEpoch !== 0n) {
      onChain = "already";
    } else {
      const { request } = await chain.client
        .simulateContract({ address, abi: PodManagerAbi, functionName: "invalidatePod", args: [tokenId, why], account: moderator })
        .catch((error: Error) => {
          throw new ModerationError(`invalidatePod(${tokenId}) would fail: ${error.message.split("\n")[0]}`);
        });
      const wallet = createWalletClient({
        account: moderator,
        chain: baseChain(chain.protocol.rpcUrl, { local: chain.protocol.local }),
        transport: http(chain.protocol.rpcUrl),
      });
      txHash = await wallet.writeContract(request);
      const receipt = await chain.client.waitForTransactionReceipt({ hash: txHash });
      if (receipt.status !== "success") throw new ModerationError(`invalidatePod(${tokenId}) reverted in ${txHash}`);
      onChain = "sent";
    }
  }
  if (draft) await setPodBanned(db, draft.id, why);
  return { podId: draft?.id ?? null, tokenId, onChain, txHash };
}

export interface UncheckedPod {
  id: string;
  tokenId: string | null;
  name: string;
  url: string;
  source: string;
  owner: string | null;
  banned: boolean;
  banReason: string | null;
  /** Whether the pod is still valid on chain (null when not indexed). */
  invalidated: boolean | null;
  createdAt: string;
}

/** Pods minted with the slop check skipped, newest first, with their moderation state. */
export async function listUncheckedPods(db: OffchainDb): Promise<UncheckedPod[]> {
  const rows = await listSlopCheckSkippedPods(db);
  return rows.map((row: PodWithChain) => ({
    id: row.id,
    tokenId: row.tokenId,
    name: row.podName,
    url: row.url,
    source: row.source,
    owner: row.walletAddress,
    banned: row.banned,
    banReason: row.banReason,
    invalidated: row.chainValidityEpoch === null ? null : row.chainInvalidFromEpoch !== null,
    createdAt: row.createdAt.toISOString(),
  }));
}
