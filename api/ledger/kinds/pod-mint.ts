/** A pod minted: `PodMinted` links a pod draft (or a pod recorded already minted) to its token. */
import { sql } from "drizzle-orm";
import { isAddressEqual, type Address, type Hash } from "viem";
import type { OffchainDb } from "../../db/client";
import { isTokenIdRef } from "../../db/refs";
import { findSubnetDraft } from "../../platform/repositories/subnets";
import { contractEvent, type LedgerChainAccess } from "../chain";
import { changed, holds, recordKind, type Sender } from "../kind";
import { podDraftByMintTx } from "../records";

const PodMinted = contractEvent("PodManager", "PodMinted");

/** The token id of the datanet a pod draft names (draft id or token id); undefined when it is not published. */
async function subnetTokenIdOf(db: OffchainDb, ref: string): Promise<bigint | undefined> {
  if (isTokenIdRef(ref)) return BigInt(ref);
  const draft = await findSubnetDraft(db, ref);
  return draft?.tokenId == null ? undefined : BigInt(draft.tokenId);
}

export type PodMintClaim = Sender & {
  /** Who the pod is minted to; the sender when absent. */
  owner?: Address;
  /** The datanet minted into; any datanet when undefined (a re-check of a pod republished since). */
  subnetTokenId: bigint | undefined;
};

async function verify(context: LedgerChainAccess, hash: Hash, { wallet, owner, subnetTokenId, receipt }: PodMintClaim) {
  const expectedOwner = owner ?? wallet;
  const { event } = await PodMinted.verify(context, {
    hash,
    receipt,
    from: wallet,
    matches: (args) =>
      isAddressEqual(args.owner, expectedOwner) && (subnetTokenId === undefined || args.subnetId === subnetTokenId),
    describe: `a pod owned by ${expectedOwner.toLowerCase()} in datanet ${subnetTokenId ?? "(any)"}`,
  });
  return { tokenId: event.args.podId, validityEpoch: event.args.validityEpoch };
}

export const podMint = recordKind({
  name: "pod-mint",
  on: PodMinted,
  stage: 1,
  verify,
  async recheck(db, context, { txHash, from }) {
    const found = await podDraftByMintTx(db, txHash);
    const draft = found?.draft;
    if (!draft?.walletAddress) return changed("the pod draft no longer names this mint");
    // after a republish the draft names the pod's current datanet, not the one it was minted into
    const republish = found?.republished;
    const subnetTokenId = republish ? undefined : await subnetTokenIdOf(db, draft.subnetId);
    if (!republish && subnetTokenId === undefined) return changed("the pod's datanet is not published any more");
    const { tokenId } = await verify(context, txHash, {
      wallet: from,
      owner: draft.walletAddress as Address,
      subnetTokenId,
    });
    // a mint the chat server recorded before its receipt came has no token id yet: the event names it
    if (draft.tokenId === null) {
      return holds([
        sql`UPDATE offchain.pod_drafts SET token_id = ${tokenId.toString()}, updated_at = now() WHERE id = ${draft.id} AND token_id IS NULL`,
      ]);
    }
    return tokenId.toString() === draft.tokenId
      ? holds()
      : changed(`the transaction now mints pod ${tokenId}, not ${draft.tokenId}`);
  },
  // the draft is a draft again; public reads follow the chain's pod meanwhile
  undo: (txHash) => [
    sql`UPDATE offchain.pod_drafts SET token_id = NULL, mint_tx_hash = NULL, updated_at = now() WHERE mint_tx_hash = ${txHash}`,
  ],
});
