/** A targeted stake: `SubnetBoosted` by the staker on the datanet of exactly the amount. */
import { sql } from "drizzle-orm";
import type { Address, Hash } from "viem";
import { contractEvent, type LedgerChainAccess } from "../chain";
import { changed, holds, recordKind, type Sender } from "../kind";
import { reportedBoostByTx } from "../records";

const SubnetBoosted = contractEvent("SubnetManager", "SubnetBoosted");

async function verify(
  context: LedgerChainAccess,
  hash: Hash,
  { wallet, subnetTokenId, amount, receipt }: Sender & { subnetTokenId: bigint; amount: bigint },
) {
  const { event } = await SubnetBoosted.verify(context, {
    hash,
    receipt,
    from: wallet,
    matches: (args) =>
      args.subnetId === subnetTokenId && args.staker.toLowerCase() === wallet.toLowerCase() && args.amount === amount,
    describe: "the datanet and amount of the request",
  });
  return { staker: event.args.staker };
}

export const boost = recordKind({
  name: "boost",
  on: SubnetBoosted,
  stage: 2,
  verify,
  async recheck(db, context, { txHash }) {
    const row = await reportedBoostByTx(db, txHash);
    if (!row) return changed("the reported boost is gone");
    await verify(context, txHash, {
      wallet: row.staker as Address,
      subnetTokenId: BigInt(row.subnetTokenId),
      amount: BigInt(row.amountRaw),
    });
    return holds();
  },
  undo: (txHash) => [sql`DELETE FROM offchain.boosts_reported WHERE tx_hash = ${txHash}`],
});
