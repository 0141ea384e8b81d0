/** SQL of the vote resource (indexed `vote` rows; reported votes live in services/votes.ts). */
import { and, asc, eq } from "drizzle-orm";
import { chain } from "../../db/chain";
import type { OffchainDb } from "../../db/client";
import { users } from "../../db/offchain";
import type { IndexedVoteRow } from "../presenters/engagement";

/** A pod's indexed votes in an epoch, in chain order, with the platform user of each voter's wallet. */
export async function listPodEpochVotes(
  db: OffchainDb,
  { podTokenId, epoch, limit }: { podTokenId: bigint; epoch: number; limit: number },
): Promise<IndexedVoteRow[]> {
  return db
    .select({
      id: chain.vote.id,
      voter: chain.vote.voter,
      epoch: chain.vote.epoch,
      votes: chain.vote.votes,
      upVote: chain.vote.upVote,
      timestamp: chain.vote.timestamp,
      userId: users.id,
    })
    .from(chain.vote)
    .leftJoin(users, eq(users.walletAddress, chain.vote.voter))
    .where(and(eq(chain.vote.podId, podTokenId), eq(chain.vote.epoch, BigInt(epoch))))
    .orderBy(asc(chain.vote.blockNumber), asc(chain.vote.logIndex))
    .limit(limit);
}
