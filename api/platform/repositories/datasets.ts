/** SQL of the dataset download (indexed votes and stored feedback of a datanet's pods). */
import { and, desc, inArray, isNotNull, type SQL, sql } from "drizzle-orm";
import { chain } from "../../db/chain";
import type { OffchainDb } from "../../db/client";
import { feedback, users, votesReported } from "../../db/offchain";

/**
 * The pods' token ids as one array parameter: `unnest` of it drives every query below, one
 * index walk per pod (vote_pod_epoch_idx), so a query reads the votes of these pods only. With
 * `pod_id IN (…)` the planner, without statistics on the indexer's tables, walked vote_epoch_idx or
 * scanned the whole vote table instead.
 */
const podArray = (podTokenIds: bigint[]) => sql`${`{${podTokenIds.join(",")}}`}::numeric[]`;

async function rowsOf<Row extends Record<string, unknown>>(db: OffchainDb, query: SQL): Promise<Row[]> {
  return (await db.execute<Row>(query)).rows as Row[];
}

type VoteRow = {
  id: string;
  pod_id: string;
  voter: string;
  subnet_id: string;
  epoch: string;
  votes: string;
  up_vote: boolean;
  voting_power: string;
  tx_hash: string;
  timestamp: string;
  user_id: string | null;
};

/**
 * The most recent `limit` indexed votes on the pods, newest first (block, then log index): per pod
 * its newest `limit` votes, then the newest `limit` of those.
 */
export async function listVotesOnPods(db: OffchainDb, podTokenIds: bigint[], limit: number) {
  if (podTokenIds.length === 0) return [];
  const v = chain.vote;
  const rows = await rowsOf<VoteRow>(
    db,
    sql`SELECT n.id, n.pod_id::text AS pod_id, n.voter, n.subnet_id::text AS subnet_id, n.epoch::text AS epoch,
               n.votes::text AS votes, n.up_vote, n.voting_power::text AS voting_power, n.tx_hash,
               n."timestamp"::text AS "timestamp", ${users.id} AS user_id
          FROM unnest(${podArray(podTokenIds)}) AS p(pod_id)
          CROSS JOIN LATERAL (
            SELECT ${v.id} AS id, ${v.podId} AS pod_id, ${v.voter} AS voter, ${v.subnetId} AS subnet_id,
                   ${v.epoch} AS epoch, ${v.votes} AS votes, ${v.upVote} AS up_vote,
                   ${v.votingPower} AS voting_power, ${v.txHash} AS tx_hash, ${v.timestamp} AS "timestamp",
                   ${v.blockNumber} AS block_number, ${v.logIndex} AS log_index
              FROM ${v}
             WHERE ${v.podId} = p.pod_id
             ORDER BY ${v.blockNumber} DESC, ${v.logIndex} DESC
             LIMIT ${limit}
          ) AS n
          LEFT JOIN ${users} ON ${users.walletAddress} = n.voter
         ORDER BY n.block_number DESC, n.log_index DESC
         LIMIT ${limit}`,
  );
  return rows.map((row) => ({
    id: row.id,
    podId: BigInt(row.pod_id),
    voter: row.voter as `0x${string}`,
    subnetId: BigInt(row.subnet_id),
    epoch: BigInt(row.epoch),
    votes: BigInt(row.votes),
    upVote: row.up_vote,
    votingPower: BigInt(row.voting_power),
    txHash: row.tx_hash as `0x${string}`,
    timestamp: BigInt(row.timestamp),
    userId: row.user_id,
  }));
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

/**
 * The most recent `limit` feedback entries sent with agents' votes on the pods, newest first; only
 * those whose vote the indexer still has (the row itself goes when a reorg undoes the vote).
 */
export async function listVoteFeedbackOnPods(db: OffchainDb, podTokenIds: bigint[], limit: number) {
  if (podTokenIds.length === 0) return [];
  const backedByIndexedVote = sql`EXISTS (SELECT 1 FROM ${chain.vote} WHERE ${chain.vote.id} = ${votesReported.voteId})`;
  return db
    .select()
    .from(votesReported)
    .where(
      and(
        inArray(votesReported.podTokenId, podTokenIds.map(String)),
        isNotNull(votesReported.feedback),
        backedByIndexedVote,
      ),
    )
    .orderBy(desc(votesReported.createdAt), desc(votesReported.id))
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
  // pairs: per pod its newest `limit` epochs with votes (one backward walk of the pod's index
  // range), then the `limit` newest overall; aggregates: per pair, the votes of that pair only
  const rows = await rowsOf<{ pod_id: string; epoch: string; voter: string; votes: string; voting_power: string }>(
    db,
    sql`WITH pairs AS MATERIALIZED (
          SELECT p.pod_id, e.epoch
            FROM unnest(${podArray(podTokenIds)}) AS p(pod_id)
            CROSS JOIN LATERAL (
              SELECT DISTINCT ${v.epoch} AS epoch FROM ${v} WHERE ${v.podId} = p.pod_id
               ORDER BY ${v.epoch} DESC LIMIT ${limit}
            ) AS e
           ORDER BY e.epoch DESC, p.pod_id
           LIMIT ${limit}
        )
        SELECT pairs.pod_id::text AS pod_id, pairs.epoch::text AS epoch, a.voter, a.votes, a.voting_power
          FROM pairs
          CROSS JOIN LATERAL (
            SELECT ${v.voter} AS voter, sum(${v.votes})::text AS votes,
                   ((array_agg(${v.votingPower} ORDER BY ${v.blockNumber} DESC, ${v.logIndex} DESC))[1])::text AS voting_power
              FROM ${v}
             WHERE ${v.podId} = pairs.pod_id AND ${v.epoch} = pairs.epoch
             GROUP BY ${v.voter}
          ) AS a
         ORDER BY pairs.epoch DESC, pairs.pod_id, a.voter`,
  );
  return rows.map((row) => ({
    podId: BigInt(row.pod_id),
    epoch: BigInt(row.epoch),
    voter: row.voter,
    votes: BigInt(row.votes),
    votingPower: BigInt(row.voting_power),
  }));
}
