/** SQL of the feedback resource. */
import { feedback } from "../../db/offchain";
import type { OffchainDb } from "../../db/client";

export type NewFeedback = typeof feedback.$inferInsert;

/** Undefined when the wallet already left feedback for this pod, epoch and direction. */
export async function insertFeedback(db: OffchainDb, values: NewFeedback): Promise<string | undefined> {
  const [row] = await db.insert(feedback).values(values).onConflictDoNothing().returning({ id: feedback.id });
  return row?.id;
}
