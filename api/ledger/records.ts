/**
 * The ledger's SQL: `verified_transactions` (a hash backs one record), and the records a verified
 * transaction backs, found by its hash: what the kinds' re-checks rebuild the first check from,
 * and the statements that follow a record to its re-mined transaction.
 */
import { eq, type SQL, sql } from "drizzle-orm";
import {
  boostsReported,
  podDrafts,
  podRepublishes,
  subnetDrafts,
  subnetParameterUpdates,
  subscriptionOrders,
  verifiedTransactions,
} from "../db/offchain";
import type { Executor } from "../platform/repositories/subnets";

export async function isTransactionUsed(db: Executor, txHash: string): Promise<boolean> {
  const [row] = await db
    .select({ txHash: verifiedTransactions.txHash })
    .from(verifiedTransactions)
    .where(eq(verifiedTransactions.txHash, txHash.toLowerCase()))
    .limit(1);
  return row !== undefined;
}

export async function insertVerifiedTransaction(
  db: Executor,
  values: { txHash: string; kind: string; recordId: string },
): Promise<void> {
  await db.insert(verifiedTransactions).values({ ...values, txHash: values.txHash.toLowerCase() });
}

export type PodDraftRow = typeof podDrafts.$inferSelect;
export type SubnetDraftRow = typeof subnetDrafts.$inferSelect;

/** The pod draft minted by the transaction, and whether the pod was republished since. */
export async function podDraftByMintTx(
  db: Executor,
  txHash: string,
): Promise<{ draft: PodDraftRow; republished: boolean } | undefined> {
  const [draft] = await db.select().from(podDrafts).where(eq(podDrafts.mintTxHash, txHash)).limit(1);
  if (!draft) return undefined;
  const [republish] = await db
    .select({ id: podRepublishes.id })
    .from(podRepublishes)
    .where(eq(podRepublishes.podDraftId, draft.id))
    .limit(1);
  return { draft, republished: republish !== undefined };
}

/** The datanet draft published by the transaction. */
export async function subnetDraftByPublishTx(db: Executor, txHash: string): Promise<SubnetDraftRow | undefined> {
  const [draft] = await db.select().from(subnetDrafts).where(eq(subnetDrafts.publishTxHash, txHash)).limit(1);
  return draft;
}

/** The datanet setter the transaction recorded, with the datanet's token id. */
export async function subnetParameterUpdateByTx(db: Executor, txHash: string) {
  const [row] = await db
    .select({
      param: subnetParameterUpdates.param,
      value: subnetParameterUpdates.value,
      tokenId: subnetDrafts.tokenId,
    })
    .from(subnetParameterUpdates)
    .innerJoin(subnetDrafts, eq(subnetDrafts.id, subnetParameterUpdates.subnetDraftId))
    .where(eq(subnetParameterUpdates.txHash, txHash))
    .limit(1);
  return row;
}

/** The republish the transaction recorded, with the pod's token id. */
export async function podRepublishByTx(db: Executor, txHash: string) {
  const [row] = await db
    .select({ subnetTokenId: podRepublishes.subnetTokenId, tokenId: podDrafts.tokenId })
    .from(podRepublishes)
    .innerJoin(podDrafts, eq(podDrafts.id, podRepublishes.podDraftId))
    .where(eq(podRepublishes.txHash, txHash))
    .limit(1);
  return row;
}

/** The boost the transaction reported. */
export async function reportedBoostByTx(db: Executor, txHash: string) {
  const [row] = await db.select().from(boostsReported).where(eq(boostsReported.txHash, txHash)).limit(1);
  return row;
}

/** The subscription order the transaction paid. */
export async function subscriptionOrderByTx(db: Executor, txHash: string) {
  const [row] = await db.select().from(subscriptionOrders).where(eq(subscriptionOrders.txHash, txHash)).limit(1);
  return row;
}

/** The statement that moves an order to the block its payment was mined again in. */
export function moveSubscriptionOrderStatement(txHash: string, blockNumber: bigint): SQL {
  return sql`UPDATE offchain.subscription_orders SET block_number = ${blockNumber.toString()} WHERE tx_hash = ${txHash}`;
}
