/** The indexer's `Voted` events and pods (`chain.vote`, `chain.pod`) as the vote and feedback routes read them. */
import { and, asc, eq } from "drizzle-orm";
import { chain } from "../../db/chain";
import type { Executor } from "./subnets";

export type IndexedWalletVote = {
  voteId: string;
  subnetTokenId: bigint;
  votes: bigint;
  upVote: boolean;
  votingPower: bigint;
};

/** The wallet's indexed votes on a pod in an epoch, in chain order. */
export async function indexedWalletVotesOnPod(
  db: Executor,
  { voter, podTokenId, epoch }: { voter: string; podTokenId: bigint; epoch: number },
): Promise<IndexedWalletVote[]> {
  return db
    .select({
      voteId: chain.vote.id,
      subnetTokenId: chain.vote.subnetId,
      votes: chain.vote.votes,
      upVote: chain.vote.upVote,
      votingPower: chain.vote.votingPower,
    })
    .from(chain.vote)
    .where(
      and(
        eq(chain.vote.podId, podTokenId),
        eq(chain.vote.epoch, BigInt(epoch)),
        eq(chain.vote.voter, voter.toLowerCase() as `0x${string}`),
      ),
    )
    .orderBy(asc(chain.vote.blockNumber), asc(chain.vote.logIndex));
}

/** Whether the indexer has the pod (chain-only pods named by token id). */
export async function indexedPodExists(db: Executor, tokenId: bigint): Promise<boolean> {
  const [row] = await db.select({ id: chain.pod.id }).from(chain.pod).where(eq(chain.pod.id, tokenId)).limit(1);
  return row !== undefined;
}
