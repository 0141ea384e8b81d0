import { and, asc, count, eq, gt, inArray, isNull, ne, sql } from "drizzle-orm";
import type { OffchainDb } from "../../db/client";
import { evalAssessments, evalAttachments, evalHumanReviews, evaluations } from "../../db/offchain/eval";
import { conflict } from "../../http/errors";
import type { Decision } from "../limits";

export type EvaluationRow = typeof evaluations.$inferSelect;
export type AttachmentRow = typeof evalAttachments.$inferSelect;

export async function findByIdempotencyKey(
  db: OffchainDb,
  accountId: string,
  idempotencyKey: string,
): Promise<EvaluationRow | undefined> {
  const [row] = await db
    .select()
    .from(evaluations)
    .where(and(eq(evaluations.accountId, accountId), eq(evaluations.idempotencyKey, idempotencyKey)))
    .limit(1);
  return row;
}

export async function findUploadForAccount(
  db: OffchainDb,
  accountId: string,
  key: string,
): Promise<AttachmentRow | undefined> {
  const [row] = await db
    .select()
    .from(evalAttachments)
    .where(and(eq(evalAttachments.key, key), eq(evalAttachments.accountId, accountId)))
    .limit(1);
  return row;
}

export interface NewEvaluation {
  evalId: string;
  accountId: string;
  type: string;
  payload: string;
  criteria: string[];
  criteriaSource: "caller" | "service";
  context: string | null;
  settlementMinutes: number;
  createdAt: Date;
  minSettleAt: Date;
  idempotencyKey: string | null;
  requestHash: string | null;
}

export interface AttachmentBinding {
  rowId: string;
  filename: string;
  sizeBytes: number;
  sha256: string;
}

/**
 * Inserts the evaluation, binds its attachment and seals its bytes, all or nothing. Undefined
 * when another request with the same Idempotency-Key got there first.
 */
export async function insertEvaluation(
  db: OffchainDb,
  values: NewEvaluation,
  attachment: (AttachmentBinding & { seal(): Promise<void> }) | null,
): Promise<EvaluationRow | undefined> {
  return db.transaction(async (tx) => {
    const [row] = await tx
      .insert(evaluations)
      .values({ ...values, status: "PENDING", mode: "STANDARD", score: 0, updatedAt: values.createdAt })
      .onConflictDoNothing({ target: [evaluations.accountId, evaluations.idempotencyKey] })
      .returning();
    if (!row) return undefined;
    if (attachment) {
      const bound = await tx
        .update(evalAttachments)
        .set({
          evaluationId: row.id,
          filename: attachment.filename,
          sizeBytes: attachment.sizeBytes,
          sha256: attachment.sha256,
          uploadedAt: values.createdAt,
        })
        .where(and(eq(evalAttachments.id, attachment.rowId), isNull(evalAttachments.evaluationId)))
        .returning({ id: evalAttachments.id });
      if (bound.length === 0) throw conflict("attachments.0: this attachment is already part of another evaluation");
      // Sealed while the attachment row is locked: a concurrent submit of the same key waits, then finds it taken.
      await attachment.seal();
    }
    return row;
  });
}

export async function findOwnedEvaluation(
  db: OffchainDb,
  evalId: string,
  accountId: string,
): Promise<EvaluationRow | undefined> {
  const [row] = await db
    .select()
    .from(evaluations)
    .where(and(eq(evaluations.evalId, evalId), eq(evaluations.accountId, accountId)))
    .limit(1);
  return row;
}

type AssessmentRow = typeof evalAssessments.$inferSelect;
type HumanReviewRow = typeof evalHumanReviews.$inferSelect;

/** A peer assessment as a judge of the evaluation (the read answer and the settlement use it). */
export const peerJudgment = (a: AssessmentRow) => ({
  id: a.id,
  agentName: a.agentName,
  modelName: a.modelName,
  score: a.score,
  decision: a.decision as Decision,
  critique: a.critique,
});

/** A human review as a judge of the evaluation. */
export const humanJudgment = (r: HumanReviewRow) => ({
  id: r.id,
  reviewerId: r.reviewerId,
  reviewerName: r.reviewerName,
  score: r.score,
  decision: r.decision as Decision,
  critique: r.critique,
});

export async function loadEvaluationDetails(db: OffchainDb, evaluationId: string) {
  const [assessments, reviews, attachments] = await Promise.all([
    db
      .select()
      .from(evalAssessments)
      .where(eq(evalAssessments.evaluationId, evaluationId))
      .orderBy(asc(evalAssessments.createdAt), asc(evalAssessments.id)),
    db
      .select()
      .from(evalHumanReviews)
      .where(eq(evalHumanReviews.evaluationId, evaluationId))
      .orderBy(asc(evalHumanReviews.createdAt), asc(evalHumanReviews.id)),
    db
      .select()
      .from(evalAttachments)
      .where(eq(evalAttachments.evaluationId, evaluationId))
      .orderBy(asc(evalAttachments.createdAt)),
  ]);
  return { assessments, reviews, attachments };
}

/** Other accounts' PENDING evaluations still open at `now`, not yet assessed by `accountId`. */
function openForAssessmentBy(accountId: string, now: Date) {
  return and(
    eq(evaluations.status, "PENDING"),
    gt(evaluations.minSettleAt, now),
    isNull(evaluations.lockedBy),
    ne(evaluations.accountId, accountId),
    sql`not exists (select 1 from ${evalAssessments} where ${evalAssessments.evaluationId} = ${evaluations.id} and ${evalAssessments.accountId} = ${accountId})`,
  );
}

export async function listPending(db: OffchainDb, accountId: string, now: Date, page: number, pageSize: number) {
  const where = openForAssessmentBy(accountId, now);
  const [totals, rows] = await Promise.all([
    db.select({ total: count() }).from(evaluations).where(where),
    db
      .select({
        id: evaluations.id,
        evalId: evaluations.evalId,
        type: evaluations.type,
        payload: evaluations.payload,
        criteria: evaluations.criteria,
        context: evaluations.context,
        createdAt: evaluations.createdAt,
        minSettleAt: evaluations.minSettleAt,
      })
      .from(evaluations)
      .where(where)
      .orderBy(asc(evaluations.minSettleAt), asc(evaluations.createdAt), asc(evaluations.id))
      .limit(pageSize)
      .offset((page - 1) * pageSize),
  ]);
  const ids = rows.map((row) => row.id);
  if (ids.length === 0) return { total: totals[0]?.total ?? 0, rows: [], attachments: [] };
  const [attachments, counts] = await Promise.all([
    db
      .select()
      .from(evalAttachments)
      .where(inArray(evalAttachments.evaluationId, ids))
      .orderBy(asc(evalAttachments.createdAt)),
    db
      .select({ evaluationId: evalAssessments.evaluationId, assessments: count() })
      .from(evalAssessments)
      .where(inArray(evalAssessments.evaluationId, ids))
      .groupBy(evalAssessments.evaluationId),
  ]);
  const assessmentCounts = new Map(counts.map((c) => [c.evaluationId, c.assessments]));
  return {
    total: totals[0]?.total ?? 0,
    rows: rows.map((row) => ({ ...row, assessmentCount: assessmentCounts.get(row.id) ?? 0 })),
    attachments,
  };
}
