/** SQL of the dataset download (indexed votes and stored feedback of a datanet's pods). */
import { and, asc, desc, eq, inArray, sql } from "drizzle-orm";
import { chain } from "../../db/chain";
import type { OffchainDb } from "../../db/client";
import { feedback, users } from "../../db/offchain";

/** The most recent `limit` indexed votes on the pods, newest first (block, then log index). */
export async function listVotesOnPods(db: OffchainDb, podTokenIds: bigint[], limit: number) {
  if (podTokenIds.length === 0) return [];
  return db
    .select({
      id: chain.vote.id,
      podId: chain.vote.podId,
      voter: chain.vote.voter,
      subnetId: chain.vote.subnetId,
      epoch: chain.vote.epoch,
      votes: chain.vote.votes,
      upVote: chain.vote.upVote,
      votingPower: chain.vote.votingPower,
      txHash: chain.vote.txHash,
      timestamp: chain.vote.timestamp,
      userId: users.id,
    })
    .from(chain.vote)
    .leftJoin(users, eq(users.walletAddress, chain.vote.voter))
    .where(inArray(chain.vote.podId, podTokenIds))
    .orderBy(desc(chain.vote.blockNumber), desc(chain.vote.logIndex))
    .limit(limit);
}

/**
 * The most recent `limit` feedback entries on the pods, newest first; only those whose votes the
 * indexer still has (feedback resting on a vote a reorg removed is not shown).
 */
export async function listFeedbackOnPods(db: OffchainDb, podTokenIds: bigint[], limit: number) {
  if (podTokenIds.length === 0) return [];
  const backedByIndexedVote = sql`EXISTS (
    SELECT 1 FROM ${chain.vote}
     WHERE ${chain.vote.podId} = ${feedback.podTokenId} AND ${chain.vote.epoch} = ${feedback.epoch}
       AND ${chain.vote.voter} = ${feedback.voter} AND ${chain.vote.subnetId} = ${feedback.subnetTokenId}
  )`;
  return db
    .select()
    .from(feedback)
    .where(and(inArray(feedback.podTokenId, podTokenIds.map(String)), backedByIndexedVote))
    .orderBy(desc(feedback.createdAt), desc(feedback.id))
    .limit(limit);
}

export type VoterAggregate = {
  podId: bigint;
  epoch: bigint;
  voter: string;
  /** Sum of the voter's votes (up and down) on the pod in the epoch, raw. */
  votes: bigint;
  /** Voting power of the voter's last vote on the pod in the epoch, raw. */
  votingPower: bigint;
};

/**
 * Per pod, epoch and voter: total votes and last voting power, for the EVOF of the `limit` most
 * recent (epoch, pod) pairs (newest epoch first, then token id).
 */
export async function voterAggregatesOnPods(
  db: OffchainDb,
  podTokenIds: bigint[],
  limit: number,
): Promise<VoterAggregate[]> {
  if (podTokenIds.length === 0) return [];
  const v = chain.vote;
  const pairs = db
    .selectDistinct({ podId: v.podId, epoch: v.epoch })
    .from(v)
    .where(inArray(v.podId, podTokenIds))
    .orderBy(desc(v.epoch), asc(v.podId))
    .limit(limit)
    .as("pairs");
  const rows = await db
    .select({
      podId: v.podId,
      epoch: v.epoch,
      voter: v.voter,
      votes: sql<string>`sum(${v.votes})::text`,
      votingPower: sql<string>`((array_agg(${v.votingPower} order by ${v.blockNumber} desc, ${v.logIndex} desc))[1])::text`,
    })
    .from(v)
    .innerJoin(pairs, and(eq(pairs.podId, v.podId), eq(pairs.epoch, v.epoch)))
    .groupBy(v.podId, v.epoch, v.voter)
    .orderBy(desc(v.epoch), asc(v.podId), asc(v.voter));
  return rows.map((row) => ({
    podId: row.podId,
    epoch: row.epoch,
    voter: row.voter,
    votes: BigInt(row.votes),
    votingPower: BigInt(row.votingPower),
  }));
}
