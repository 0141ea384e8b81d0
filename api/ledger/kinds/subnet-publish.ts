/** A datanet draft published: `SubnetPublished` links the draft to the datanet's token. */
import { sql } from "drizzle-orm";
import { isAddressEqual, type Address, type Hash } from "viem";
import { contractEvent, type LedgerChainAccess } from "../chain";
import { changed, holds, recordKind, type Sender } from "../kind";
import { subnetDraftByPublishTx } from "../records";

const SubnetPublished = contractEvent("SubnetManager", "SubnetPublished");

/** Owner = sender, the draft's primary token; the facts: the datanet's token id. */
async function verify(context: LedgerChainAccess, hash: Hash, { wallet, primaryToken, receipt }: Sender & { primaryToken: string }) {
  const { event } = await SubnetPublished.verify(context, {
    hash,
    receipt,
    from: wallet,
    matches: (args) => isAddressEqual(args.owner, wallet) && isAddressEqual(args.primaryToken, primaryToken as Address),
    describe: "the caller's wallet and the draft's nativeTokenAddress",
  });
  return { tokenId: event.args.subnetId };
}

export const subnetPublish = recordKind({
  name: "subnet-publish",
  on: SubnetPublished,
  stage: 0,
  verify,
  async recheck(db, context, { txHash, from }) {
    const draft = await subnetDraftByPublishTx(db, txHash);
    if (!draft?.tokenId) return changed("the datanet draft no longer names this publish");
    const { tokenId } = await verify(context, txHash, { wallet: from, primaryToken: draft.nativeTokenAddress });
    return tokenId.toString() === draft.tokenId
      ? holds()
      : changed(`the transaction now publishes datanet ${tokenId}, not ${draft.tokenId}`);
  },
  // the draft is a draft again; public reads follow the chain's datanet meanwhile
  undo: (txHash) => [
    sql`UPDATE offchain.subnet_drafts SET token_id = NULL, publish_tx_hash = NULL, updated_at = now() WHERE publish_tx_hash = ${txHash}`,
  ],
});
