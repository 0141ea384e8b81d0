/**
 * Votes reported through the routes (`offchain.votes_reported`), as they compare with the
 * indexer's `Voted` events (`chain.vote`): the insert, a report the indexer does not have, the
 * reconciler's lookup by transaction and its move of a vote's id.
 */
import { and, eq, isNull, type SQL, sql } from "drizzle-orm";
import { chain } from "../../db/chain";
import { votesReported } from "../../db/offchain";
import type { Executor } from "./subnets";

export type NewReportedVote = typeof votesReported.$inferInsert;
export type ReportedVoteRow = typeof votesReported.$inferSelect;

export async function insertReportedVote(db: Executor, values: NewReportedVote): Promise<void> {
  await db.insert(votesReported).values(values);
}

/** The reported vote of a transaction. */
export async function findReportedVoteByTx(db: Executor, txHash: string): Promise<ReportedVoteRow | undefined> {
  const [row] = await db.select().from(votesReported).where(eq(votesReported.txHash, txHash)).limit(1);
  return row;
}

/**
 * Whether the wallet reported a vote on the pod in the epoch (in that direction) that the indexer
 * does not have.
 */
export async function unindexedReportedVoteExists(
  db: Executor,
  { voter, podTokenId, epoch, upVote }: { voter: string; podTokenId: bigint; epoch: number; upVote: boolean },
): Promise<boolean> {
  const [row] = await db
    .select({ id: votesReported.id })
    .from(votesReported)
    .leftJoin(chain.vote, eq(chain.vote.id, votesReported.voteId))
    .where(
      and(
        eq(votesReported.voter, voter.toLowerCase()),
        eq(votesReported.podTokenId, podTokenId.toString()),
        eq(votesReported.epoch, epoch),
        eq(votesReported.upVote, upVote),
        isNull(chain.vote.id),
      ),
    )
    .limit(1);
  return row !== undefined;
}

/** Statements that move a reported vote to its new log index and public id (the reconciler runs them with its verdict). */
export function moveReportedVoteStatements(txHash: string, voteId: string, logIndex: number): SQL[] {
  return [
    sql`UPDATE offchain.votes_reported SET vote_id = ${voteId}, log_index = ${logIndex} WHERE tx_hash = ${txHash}`,
    sql`UPDATE offchain.verified_transactions SET record_id = ${voteId} WHERE tx_hash = ${txHash}`,
  ];
}
