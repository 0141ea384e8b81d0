/** Targeted stakes: a verified `boost` recorded with its transaction. */
import type { OffchainDb } from "../../db/client";
import { insertBoost, type NewBoost } from "../repositories/stakes";
import { BOOST_TX_KIND, recordWithTransaction } from "./votes";

/** Inserts the stake and claims its transaction in one database transaction (400 when the hash is taken). */
export async function recordBoost(db: OffchainDb, values: Omit<NewBoost, "id"> & { txHash: `0x${string}` }): Promise<string> {
  const id = crypto.randomUUID();
  await recordWithTransaction(db, { txHash: values.txHash, kind: BOOST_TX_KIND, recordId: id }, (executor) =>
    insertBoost(executor, { ...values, id }),
  );
  return id;
}
