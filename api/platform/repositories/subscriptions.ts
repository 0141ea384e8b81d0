/** SQL of subscription orders. */
import { and, desc, eq, gt, sql } from "drizzle-orm";
import { chain } from "../../db/chain";
import type { OffchainDb } from "../../db/client";
import { subscriptionOrders } from "../../db/offchain";
import type { Executor } from "./subnets";

export type OrderRow = typeof subscriptionOrders.$inferSelect;
export type NewOrder = typeof subscriptionOrders.$inferInsert;

export async function insertOrder(db: Executor, values: NewOrder): Promise<void> {
  await db.insert(subscriptionOrders).values(values);
}

/** The agent's orders for a datanet, newest first. */
export async function listAgentOrders(db: OffchainDb, agentId: string, subnetDraftId: string): Promise<OrderRow[]> {
  return db
    .select()
    .from(subscriptionOrders)
    .where(and(eq(subscriptionOrders.agentId, agentId), eq(subscriptionOrders.subnetId, subnetDraftId)))
    .orderBy(desc(subscriptionOrders.createdAt), desc(subscriptionOrders.id));
}

/** Marks a CREATED order VERIFIED (once; a concurrent refresh keeps the first verification). */
export async function markOrderVerified(
  db: OffchainDb,
  id: string,
  { verifiedAt, expiresAt }: { verifiedAt: Date; expiresAt: Date },
): Promise<void> {
  await db
    .update(subscriptionOrders)
    .set({ status: "VERIFIED", verifiedAt, expiresAt })
    .where(and(eq(subscriptionOrders.id, id), eq(subscriptionOrders.status, "CREATED")));
}

/**
 * The agent's access to the datanet at `now` through its orders: `active` with a VERIFIED, unexpired
 * order whose payment the indexer has (canonical chain state), `unindexed` when such orders exist but
 * none of their payments is indexed (not yet, or dropped by a reorg), else `none`.
 */
export async function subscriptionAccess(
  db: OffchainDb,
  { agentId, subnetDraftId, now }: { agentId: string; subnetDraftId: string; now: Date },
): Promise<"active" | "unindexed" | "none"> {
  const rows = await db
    .select({ indexedTx: chain.subnetAccess.txHash })
    .from(subscriptionOrders)
    .leftJoin(
      chain.subnetAccess,
      and(
        sql`${chain.subnetAccess.txHash} = ${subscriptionOrders.txHash}`,
        sql`${chain.subnetAccess.subnetId} = ${subscriptionOrders.subnetTokenId}`,
      ),
    )
    .where(
      and(
        eq(subscriptionOrders.agentId, agentId),
        eq(subscriptionOrders.subnetId, subnetDraftId),
        eq(subscriptionOrders.status, "VERIFIED"),
        gt(subscriptionOrders.expiresAt, now),
      ),
    );
  if (rows.some((row) => row.indexedTx !== null)) return "active";
  return rows.length > 0 ? "unindexed" : "none";
}
