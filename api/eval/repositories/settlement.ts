import { and, eq, inArray, sql } from "drizzle-orm";
import type { OffchainDb } from "../../db/client";
import { evaluations } from "../../db/offchain/eval";

export type EvaluationRow = typeof evaluations.$inferSelect;

/**
 * Claims up to `limit` PENDING evaluations whose window closed by `now` and
 * that nobody holds (or whose holder's lease ran out before `leaseCutoff`).
 * `FOR UPDATE SKIP LOCKED`: concurrent workers claim disjoint sets, and a row
 * an assessment transaction holds (FOR SHARE) is left for the next round.
 */
export async function claimDue(
  db: OffchainDb,
  input: { token: string; now: Date; leaseCutoff: Date; limit: number },
): Promise<EvaluationRow[]> {
  const claimed = await db.execute<{ id: string }>(sql`
    UPDATE offchain.evaluations
       SET locked_by = ${input.token}, locked_at = ${input.now}, updated_at = ${input.now}
     WHERE id IN (
       SELECT id FROM offchain.evaluations
        WHERE status = 'PENDING'
          AND min_settle_at <= ${input.now}
          AND (locked_by IS NULL OR locked_at < ${input.leaseCutoff})
        ORDER BY min_settle_at, id
        LIMIT ${input.limit}
        FOR UPDATE SKIP LOCKED)
    RETURNING id`);
  const ids = claimed.rows.map((row) => row.id);
  if (ids.length === 0) return [];
  const rows = await db.select().from(evaluations).where(inArray(evaluations.id, ids));
  return rows.sort((a, b) => a.minSettleAt.getTime() - b.minSettleAt.getTime() || a.id.localeCompare(b.id));
}

/**
 * The one write that settles: only while still PENDING and still held by this
 * claim. False when another worker took over (lease expired) or settled first.
 */
export async function finalize(
  db: OffchainDb,
  input: {
    id: string;
    token: string;
    status: "SETTLED" | "FAILED";
    verdict: Record<string, unknown>;
    at: Date;
  },
): Promise<boolean> {
  const rows = await db
    .update(evaluations)
    .set({
      status: input.status,
      score: input.status === "SETTLED" ? 100 : 0,
      verdict: input.verdict,
      settledAt: input.at,
      lockedBy: null,
      lockedAt: null,
      updatedAt: input.at,
    })
    .where(and(eq(evaluations.id, input.id), eq(evaluations.status, "PENDING"), eq(evaluations.lockedBy, input.token)))
    .returning({ id: evaluations.id });
  return rows.length > 0;
}

/** Gives a claimed evaluation back (to be judged again at a later poll). */
export async function release(db: OffchainDb, input: { id: string; token: string; at: Date }): Promise<void> {
  await db
    .update(evaluations)
    .set({ lockedBy: null, lockedAt: null, updatedAt: input.at })
    .where(and(eq(evaluations.id, input.id), eq(evaluations.status, "PENDING"), eq(evaluations.lockedBy, input.token)));
}

/**
 * The settlement queue: PENDING evaluations whose window closed by `now`, and the age in seconds
 * of the oldest of them (0 when none). One range scan of `evaluations_status_min_settle_idx`.
 */
export async function dueQueue(db: OffchainDb, now: Date): Promise<{ due: number; oldestDueSeconds: number }> {
  const result = await db.execute<{ due: number; oldest_ms: number | null }>(sql`
    SELECT count(*)::int AS due, (extract(epoch FROM min(min_settle_at)) * 1000)::float8 AS oldest_ms
      FROM offchain.evaluations
     WHERE status = 'PENDING' AND min_settle_at <= ${now}`);
  const row = result.rows[0];
  const oldestMs = row?.oldest_ms;
  return {
    due: row?.due ?? 0,
    oldestDueSeconds: oldestMs == null ? 0 : Math.max(0, (now.getTime() - oldestMs) / 1000),
  };
}
