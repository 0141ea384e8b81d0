/** SQL of subscription orders. */
import { and, desc, eq, gt } from "drizzle-orm";
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

/** Whether the agent holds a VERIFIED order for the datanet that has not expired at `now`. */
export async function hasActiveSubscription(
  db: OffchainDb,
  { agentId, subnetDraftId, now }: { agentId: string; subnetDraftId: string; now: Date },
): Promise<boolean> {
  const [row] = await db
    .select({ id: subscriptionOrders.id })
    .from(subscriptionOrders)
    .where(
      and(
        eq(subscriptionOrders.agentId, agentId),
        eq(subscriptionOrders.subnetId, subnetDraftId),
        eq(subscriptionOrders.status, "VERIFIED"),
        gt(subscriptionOrders.expiresAt, now),
      ),
    )
    .limit(1);
  return row !== undefined;
}
