/** A pod republished into another datanet: `PodRepublished` for the pod's token by its owner. */
import { sql } from "drizzle-orm";
import { isAddressEqual, type Hash } from "viem";
import { chain } from "../../db/chain";
import { contractEvent, type LedgerChainAccess } from "../chain";
import { changed, holds, recordKind, type Sender } from "../kind";
import { podRepublishByTx } from "../records";

const PodRepublished = contractEvent("PodManager", "PodRepublished");

/** Owner = sender; the facts: the datanet the pod is republished into. */
async function verify(context: LedgerChainAccess, hash: Hash, { wallet, podTokenId, receipt }: Sender & { podTokenId: bigint }) {
  const { event } = await PodRepublished.verify(context, {
    hash,
    receipt,
    from: wallet,
    matches: (args) => args.podId === podTokenId && isAddressEqual(args.owner, wallet),
    describe: `pod ${podTokenId} republished by the caller's wallet`,
  });
  return { subnetTokenId: event.args.subnetId, validityEpoch: event.args.validityEpoch };
}

export const podRepublish = recordKind({
  name: "pod-republish",
  on: PodRepublished,
  stage: 2,
  verify,
  async recheck(db, context, { txHash, from }) {
    const row = await podRepublishByTx(db, txHash);
    if (!row?.tokenId) return changed("the republished pod is not minted any more");
    const { subnetTokenId } = await verify(context, txHash, { wallet: from, podTokenId: BigInt(row.tokenId) });
    return subnetTokenId.toString() === row.subnetTokenId
      ? holds()
      : changed(`the transaction now republishes into datanet ${subnetTokenId}, not ${row.subnetTokenId}`);
  },
  // the pod's datanet follows the canonical chain again (its draft when it has metadata)
  undo: (txHash) => [
    sql`WITH gone AS (DELETE FROM offchain.pod_republishes WHERE tx_hash = ${txHash} RETURNING pod_draft_id)
        UPDATE offchain.pod_drafts d
           SET subnet_id = coalesce(
                 (SELECT coalesce(s.id::text, p.subnet_id::text)
                    FROM ${chain.pod} p LEFT JOIN offchain.subnet_drafts s ON s.token_id = p.subnet_id
                   WHERE p.id = d.token_id),
                 d.subnet_id),
               updated_at = now()
          FROM gone WHERE d.id = gone.pod_draft_id`,
  ],
});
