/** SQL of the lock resource (indexed VeCore `lock` rows). */
import { and, asc, eq } from "drizzle-orm";
import { chain } from "../../db/chain";
import type { OffchainDb } from "../../db/client";

/** Locks the address owns now and has not withdrawn, by token id. */
export async function listOwnedLocks(db: OffchainDb, owner: `0x${string}`): Promise<{ id: bigint; amount: bigint }[]> {
  return db
    .select({ id: chain.lock.id, amount: chain.lock.amount })
    .from(chain.lock)
    .where(and(eq(chain.lock.owner, owner.toLowerCase() as `0x${string}`), eq(chain.lock.withdrawn, false)))
    .orderBy(asc(chain.lock.id));
}
