/** SQL of the feedback resource. */
import { and, eq, ne, or } from "drizzle-orm";
import { feedback } from "../../db/offchain";
import type { OffchainDb } from "../../db/client";

export type NewFeedback = typeof feedback.$inferInsert;

/**
 * Stores the feedback; undefined when the wallet already left feedback for this pod, epoch and
 * direction. `values` were just checked against the indexed votes: a stored feedback of the same
 * direction whose datanet, votes or voting power differ rests on votes the chain no longer has
 * (a reorg replaced them), so it is replaced rather than blocking the wallet.
 */
export async function insertFeedback(db: OffchainDb, values: NewFeedback): Promise<string | undefined> {
  return db.transaction(async (tx) => {
    await tx
      .delete(feedback)
      .where(
        and(
          eq(feedback.voter, values.voter),
          eq(feedback.podTokenId, values.podTokenId),
          eq(feedback.epoch, values.epoch),
          eq(feedback.upVote, values.upVote),
          or(
            ne(feedback.subnetTokenId, values.subnetTokenId),
            ne(feedback.votes, values.votes),
            ne(feedback.votingPower, values.votingPower),
          ),
        ),
      );
    const [row] = await tx.insert(feedback).values(values).onConflictDoNothing().returning({ id: feedback.id });
    return row?.id;
  });
}
