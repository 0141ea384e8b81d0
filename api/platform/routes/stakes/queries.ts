/** SQL of the stake resource. */
import type { OffchainDb } from "../../../db/client";
import { boostsReported } from "../../../db/offchain";
import { BOOST_TX_KIND, recordWithTransaction } from "../../services/votes";

/** Inserts the stake and claims its transaction in one database transaction (400 when the hash is taken). */
export async function insertBoost(
  db: OffchainDb,
  values: Omit<typeof boostsReported.$inferInsert, "id"> & { txHash: `0x${string}` },
): Promise<string> {
  const id = crypto.randomUUID();
  await recordWithTransaction(db, { txHash: values.txHash, kind: BOOST_TX_KIND, recordId: id }, (executor) =>
    executor.insert(boostsReported).values({ ...values, id }),
  );
  return id;
}
