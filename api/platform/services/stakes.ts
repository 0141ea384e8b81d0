/** Targeted stakes: a verified `boost` recorded with its transaction. */
import type { Address, Hash } from "viem";
import type { OffchainDb } from "../../db/client";
import { verifyOnChain, type PlatformContext } from "../context";
import { insertBoost, type NewBoost } from "../repositories/stakes";
import { BOOST_TX_KIND, recordWithTransaction } from "./votes";

/** Checks a boost txHash: SubnetBoosted from the SubnetManager by `wallet` of exactly `amount` (raw) on the datanet. */
export async function verifyBoost(
  context: PlatformContext,
  { wallet, subnetTokenId, amount, txHash }: { wallet: Address; subnetTokenId: bigint; amount: bigint; txHash: Hash },
): Promise<{ staker: Address }> {
  const { event } = await verifyOnChain(context, "SubnetManager", {
    hash: txHash,
    from: wallet,
    eventName: "SubnetBoosted",
    matches: (args) =>
      args.subnetId === subnetTokenId && args.staker.toLowerCase() === wallet.toLowerCase() && args.amount === amount,
    describe: "the datanet and amount of the request",
  });
  return { staker: event.args.staker };
}

/** Inserts the stake and claims its transaction in one database transaction (400 when the hash is taken). */
export async function recordBoost(
  db: OffchainDb,
  values: Omit<NewBoost, "id"> & { txHash: `0x${string}` },
): Promise<string> {
  const id = crypto.randomUUID();
  await recordWithTransaction(db, { txHash: values.txHash, kind: BOOST_TX_KIND, recordId: id }, (executor) =>
    insertBoost(executor, { ...values, id }),
  );
  return id;
}
