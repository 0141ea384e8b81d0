import { count } from "drizzle-orm";
import { chain } from "../../db/chain";
import type { OffchainDb } from "../../db/client";

/** The indexed protocol parameters (the indexer's one `protocol` row), if indexed yet. */
export async function findProtocol(db: OffchainDb) {
  const [row] = await db.select().from(chain.protocol).limit(1);
  return row;
}

/** How many pods the indexer holds. */
export async function countPods(db: OffchainDb): Promise<number | undefined> {
  const [row] = await db.select({ n: count() }).from(chain.pod);
  return row?.n;
}
