/**
 * SQL of webhook subscriptions (docs/webhooks.md): the owner's CRUD, and the delivery worker's
 * claim and its fenced writes. A worker claims a due subscription by stamping a lease (token and
 * expiry) on it in one UPDATE over `FOR UPDATE SKIP LOCKED`, so replicas claim disjoint
 * subscriptions; every later write names the token and applies only while the claim is still its
 * own, so a worker whose lease ran out (it stalled) changes nothing.
 */
import { and, asc, eq, sql } from "drizzle-orm";
import type { OffchainDb } from "../../db/client";
import { webhookSubscriptions, type WebhookMark, type WebhookMessage } from "../../db/offchain";

export type WebhookRow = typeof webhookSubscriptions.$inferSelect;
export type NewWebhook = typeof webhookSubscriptions.$inferInsert;

export async function insertWebhook(db: OffchainDb, values: NewWebhook): Promise<WebhookRow> {
  const [row] = await db.insert(webhookSubscriptions).values(values).returning();
  return row!;
}

export async function countAgentWebhooks(db: OffchainDb, agentId: string): Promise<number> {
  const [row] = await db
    .select({ count: sql<number>`count(*)::int` })
    .from(webhookSubscriptions)
    .where(eq(webhookSubscriptions.agentId, agentId));
  return row?.count ?? 0;
}

/** The agent's subscriptions, oldest first. */
export async function listAgentWebhooks(db: OffchainDb, agentId: string): Promise<WebhookRow[]> {
  return db
    .select()
    .from(webhookSubscriptions)
    .where(eq(webhookSubscriptions.agentId, agentId))
    .orderBy(asc(webhookSubscriptions.createdAt), asc(webhookSubscriptions.id));
}

const own = (agentId: string, id: string) => and(eq(webhookSubscriptions.id, id), eq(webhookSubscriptions.agentId, agentId));

export async function findAgentWebhook(db: OffchainDb, agentId: string, id: string): Promise<WebhookRow | undefined> {
  const [row] = await db.select().from(webhookSubscriptions).where(own(agentId, id));
  return row;
}

export async function deleteAgentWebhook(db: OffchainDb, agentId: string, id: string): Promise<boolean> {
  const rows = await db.delete(webhookSubscriptions).where(own(agentId, id)).returning({ id: webhookSubscriptions.id });
  return rows.length > 0;
}

/** Active again, due now, its failure count reset (its queue and cursor are kept: nothing is skipped). */
export async function resumeAgentWebhook(db: OffchainDb, agentId: string, id: string): Promise<WebhookRow | undefined> {
  const [row] = await db
    .update(webhookSubscriptions)
    .set({ status: "active", pausedReason: null, failureCount: 0, firstFailureAt: null, nextAttemptAt: sql`now()` })
    .where(own(agentId, id))
    .returning();
  return row;
}

/**
 * Claims the active subscription due the longest (`next_attempt_at` passed, no live lease) for
 * `leaseMs`; undefined when none is due.
 */
export async function claimDueWebhook(db: OffchainDb, token: string, leaseMs: number): Promise<WebhookRow | undefined> {
  const t = webhookSubscriptions;
  const result = await db.execute<{ id: string }>(sql`
    UPDATE ${t} SET lease_token = ${token}::uuid, lease_until = now() + ${leaseMs} * interval '1 millisecond'
    WHERE ${t.id} = (
      SELECT s.id FROM ${t} s
      WHERE s.status = 'active' AND s.next_attempt_at <= now() AND (s.lease_until IS NULL OR s.lease_until < now())
      ORDER BY s.next_attempt_at LIMIT 1 FOR UPDATE SKIP LOCKED)
    RETURNING ${t.id} AS id`);
  const id = result.rows[0]?.id;
  if (!id) return undefined;
  const [row] = await db.select().from(t).where(eq(t.id, id));
  return row;
}

const held = (id: string, token: string) =>
  and(eq(webhookSubscriptions.id, id), eq(webhookSubscriptions.leaseToken, token), eq(webhookSubscriptions.status, "active"));

export interface WebhookProgress {
  cursor: { id: string; blockNumber: bigint; logIndex: number };
  floor: { id: string; blockNumber: bigint; logIndex: number };
  recent: WebhookMark[];
  skipped: Array<[id: string, blockNumber: string]>;
  queue: WebhookMessage[];
}

/** Stores what a read of the log found (new cursor, remembered events, queue); false when the claim was lost. */
export async function saveWebhookProgress(db: OffchainDb, id: string, token: string, progress: WebhookProgress): Promise<boolean> {
  const rows = await db
    .update(webhookSubscriptions)
    .set({
      cursorId: progress.cursor.id,
      cursorBlock: progress.cursor.blockNumber.toString(),
      cursorLogIndex: progress.cursor.logIndex,
      floorId: progress.floor.id,
      floorBlock: progress.floor.blockNumber.toString(),
      floorLogIndex: progress.floor.logIndex,
      recent: progress.recent,
      skipped: progress.skipped,
      queue: progress.queue,
    })
    .where(held(id, token))
    .returning({ id: webhookSubscriptions.id });
  return rows.length > 0;
}

/** The queue's first message was acknowledged: it leaves the queue, failures reset, the lease extended. */
export async function markWebhookDelivered(
  db: OffchainDb,
  id: string,
  token: string,
  input: { deliveredId: string; queue: WebhookMessage[]; leaseMs: number },
): Promise<boolean> {
  const rows = await db
    .update(webhookSubscriptions)
    .set({
      queue: input.queue,
      lastDeliveredId: input.deliveredId,
      lastDeliveredAt: sql`now()`,
      lastAttemptAt: sql`now()`,
      failureCount: 0,
      firstFailureAt: null,
      leaseUntil: sql`now() + ${input.leaseMs} * interval '1 millisecond'`,
    })
    .where(held(id, token))
    .returning({ id: webhookSubscriptions.id });
  return rows.length > 0;
}

/** A failed attempt: counted, its error kept, retried after `retryInMs` or paused with `pausedReason`; the lease ends. */
export async function markWebhookFailed(
  db: OffchainDb,
  id: string,
  token: string,
  input: { error: string; retryInMs: number; pausedReason: string | undefined },
): Promise<void> {
  await db
    .update(webhookSubscriptions)
    .set({
      failureCount: sql`${webhookSubscriptions.failureCount} + 1`,
      firstFailureAt: sql`coalesce(${webhookSubscriptions.firstFailureAt}, now())`,
      lastError: input.error,
      lastAttemptAt: sql`now()`,
      nextAttemptAt: sql`now() + ${input.retryInMs} * interval '1 millisecond'`,
      status: input.pausedReason ? "paused" : "active",
      pausedReason: input.pausedReason ?? null,
      leaseToken: null,
      leaseUntil: null,
    })
    .where(held(id, token));
}

/** Ends the claim; the subscription is due again after `dueInMs`. */
export async function releaseWebhook(db: OffchainDb, id: string, token: string, dueInMs: number): Promise<void> {
  await db
    .update(webhookSubscriptions)
    .set({ leaseToken: null, leaseUntil: null, nextAttemptAt: sql`now() + ${dueInMs} * interval '1 millisecond'` })
    .where(and(eq(webhookSubscriptions.id, id), eq(webhookSubscriptions.leaseToken, token)));
}
