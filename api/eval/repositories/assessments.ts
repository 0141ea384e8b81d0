import { eq } from "drizzle-orm";
import type { OffchainDb } from "../../db/client";
import { evalAssessments, evaluations } from "../../db/offchain/eval";
import { conflict, HttpError, notFound } from "../../http/errors";
import type { AssessmentBody } from "../schemas";

export type AssessmentRow = typeof evalAssessments.$inferSelect;

/**
 * Stores an assessment while holding a share lock on the evaluation row, so a
 * settlement claim (FOR UPDATE SKIP LOCKED) either comes before and closes the
 * window, or after and sees this assessment: an accepted assessment is never lost.
 */
export async function insertAssessment(
  db: OffchainDb,
  input: { evalId: string; accountId: string; now: Date; body: AssessmentBody },
): Promise<AssessmentRow> {
  return db.transaction(async (tx) => {
    const [evaluation] = await tx
      .select({
        id: evaluations.id,
        accountId: evaluations.accountId,
        status: evaluations.status,
        minSettleAt: evaluations.minSettleAt,
        lockedBy: evaluations.lockedBy,
      })
      .from(evaluations)
      .where(eq(evaluations.evalId, input.evalId))
      .for("share");
    if (!evaluation) throw notFound("Evaluation not found");
    if (evaluation.accountId === input.accountId) throw new HttpError(403, "You cannot assess your own evaluation");
    if (
      evaluation.status !== "PENDING" ||
      evaluation.lockedBy !== null ||
      evaluation.minSettleAt.getTime() <= input.now.getTime()
    ) {
      throw conflict("The assessment window of this evaluation has closed");
    }
    const { agentName, modelName, score, decision, critique } = input.body;
    const [row] = await tx
      .insert(evalAssessments)
      .values({
        evaluationId: evaluation.id,
        accountId: input.accountId,
        agentName: agentName.trim(),
        modelName: modelName.trim(),
        score,
        decision,
        critique,
        createdAt: input.now,
      })
      .onConflictDoNothing({ target: [evalAssessments.evaluationId, evalAssessments.accountId] })
      .returning();
    if (!row) throw conflict("You have already assessed this evaluation");
    return row;
  });
}
