/** Targeted stakes: a verified `boost` recorded with its transaction (the ledger's `boost` kind). */
import type { Address, Hash } from "viem";
import type { OffchainDb } from "../../db/client";
import type { LedgerChainAccess } from "../../ledger/chain";
import { record } from "../../ledger/ledger";
import { KINDS } from "../../ledger/registry";
import { insertBoost, type NewBoost } from "../repositories/stakes";

/**
 * Records a boost: the txHash is SubnetBoosted from the SubnetManager by `wallet` of exactly
 * `amount` (raw) on the datanet; the stake and its transaction are stored together (400 when the
 * hash is taken).
 */
export async function recordBoost(
  db: OffchainDb,
  context: LedgerChainAccess,
  {
    txHash,
    wallet,
    subnetTokenId,
    amount,
    values,
  }: {
    txHash: Hash;
    wallet: Address;
    subnetTokenId: bigint;
    amount: bigint;
    values: Omit<NewBoost, "id" | "staker" | "txHash" | "subnetTokenId" | "amountRaw">;
  },
): Promise<string> {
  const id = crypto.randomUUID();
  await record(db, context, KINDS.boost, {
    txHash,
    claim: () => ({ wallet, subnetTokenId, amount }),
    recordId: id,
    insert: (executor, { staker }) =>
      insertBoost(executor, {
        ...values,
        id,
        subnetTokenId: subnetTokenId.toString(),
        staker: staker.toLowerCase(),
        amountRaw: amount.toString(),
        txHash,
      }),
  });
  return id;
}
