/**
 * Votes: verifying a `Voted` transaction, recording a reported vote, and reading a wallet's
 * indexed votes on a pod in an epoch. Pods and subnets named by id
 * or token id are resolved in refs.ts.
 */
import { and, asc, eq, isNull } from "drizzle-orm";
import type { Address, Hash } from "viem";
import { eventId } from "../../../src/lib/ids";
import { chain } from "../../db/chain";
import type { OffchainDb } from "../../db/client";
import { votesReported } from "../../db/offchain";
import { badRequest } from "../../http/errors";
import { verifyOnChain, type PlatformContext } from "../context";
import { recordWithTransaction } from "./subnet-drafts";

export { assertTransactionUnused, recordWithTransaction } from "./subnet-drafts";

/** Kinds of `verified_transactions` rows written by the engagement and agent routes. */
export const VOTE_TX_KIND = "vote";
export const BOOST_TX_KIND = "boost";
export const ORDER_TX_KIND = "subscription-order";

// ---- transactions ----
// Reuse rules are those of subnet-drafts.ts: a hash already in verified_transactions is 400
// "Transaction already used", checked before the chain is asked and again atomically on insert.

// ---- votes ----

export type VerifiedVote = {
  voteId: string;
  txHash: Hash;
  logIndex: number;
  podTokenId: bigint;
  voter: Address;
  subnetTokenId: bigint;
  epoch: bigint;
  votes: bigint;
  upVote: boolean;
  votingPower: bigint;
};

export type VoteClaim = {
  podTokenId: bigint;
  epoch?: bigint;
  votes?: bigint;
  upVote?: boolean;
};

/**
 * Proves that `hash` is a successful PodManager `vote` sent by `voter` whose `Voted` event
 * names the pod (and, when given, the epoch, exact raw votes and direction). 400 otherwise.
 */
export async function verifyVoteTransaction(
  context: PlatformContext,
  { hash, voter, claim }: { hash: Hash; voter: Address; claim: VoteClaim },
): Promise<VerifiedVote> {
  const { event } = await verifyOnChain(context, "PodManager", {
    hash,
    from: voter,
    eventName: "Voted",
    matches: (args) =>
      args.podId === claim.podTokenId &&
      args.voter.toLowerCase() === voter.toLowerCase() &&
      (claim.epoch === undefined || args.epoch === claim.epoch) &&
      (claim.votes === undefined || args.votes === claim.votes) &&
      (claim.upVote === undefined || args.upVote === claim.upVote),
    describe: "the pod, epoch, votes and direction of the request",
  });
  const a = event.args;
  return {
    voteId: eventId(event.transactionHash, event.logIndex),
    txHash: event.transactionHash.toLowerCase() as Hash,
    logIndex: event.logIndex,
    podTokenId: a.podId,
    voter: a.voter.toLowerCase() as Address,
    subnetTokenId: a.subnetId,
    epoch: a.epoch,
    votes: a.votes,
    upVote: a.upVote,
    votingPower: a.votingPower,
  };
}

/** Records a verified vote reported by a user or an agent; the transaction backs this record only. */
export async function recordReportedVote(
  db: OffchainDb,
  vote: VerifiedVote,
  by: { userId?: string; agentId?: string; podKey: string },
): Promise<string> {
  if (vote.epoch > 2_147_483_647n) throw badRequest("epoch out of range");
  await recordWithTransaction(db, { txHash: vote.txHash, kind: VOTE_TX_KIND, recordId: vote.voteId }, (executor) =>
    executor.insert(votesReported).values({
      voteId: vote.voteId,
      userId: by.userId ?? null,
      agentId: by.agentId ?? null,
      podId: by.podKey,
      podTokenId: vote.podTokenId.toString(),
      subnetTokenId: vote.subnetTokenId.toString(),
      voter: vote.voter,
      epoch: Number(vote.epoch),
      votes: vote.votes.toString(),
      votingPower: vote.votingPower.toString(),
      upVote: vote.upVote,
      txHash: vote.txHash,
      logIndex: vote.logIndex,
    }),
  );
  return vote.voteId;
}

export type WalletVote = {
  voteId: string;
  subnetTokenId: bigint;
  votes: bigint;
  upVote: boolean;
  votingPower: bigint;
};

/**
 * The wallet's votes on a pod in an epoch, from the indexed `Voted` events only: what rests on a
 * vote (feedback) rests on canonical indexed state, never on a report the chain may have dropped.
 */
export async function walletVotesOnPod(
  db: OffchainDb,
  { voter, podTokenId, epoch }: { voter: string; podTokenId: bigint; epoch: number },
): Promise<WalletVote[]> {
  const indexed = await db
    .select({
      id: chain.vote.id,
      subnetId: chain.vote.subnetId,
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
  return indexed.map((v) => ({
    voteId: v.id,
    subnetTokenId: v.subnetId,
    votes: v.votes,
    upVote: v.upVote,
    votingPower: v.votingPower,
  }));
}

/**
 * Whether the wallet reported a vote on the pod in the epoch (in that direction) that the indexer
 * does not have: not indexed yet, or dropped by a reorg and about to be undone.
 */
export async function hasUnindexedReportedVote(
  db: OffchainDb,
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

/** Whether the indexed pod exists (chain-only pods named by token id). */
export async function indexedPodExists(db: OffchainDb, tokenId: bigint): Promise<boolean> {
  const [row] = await db.select({ id: chain.pod.id }).from(chain.pod).where(eq(chain.pod.id, tokenId)).limit(1);
  return row !== undefined;
}

/** Stable user id for a wallet without a platform account (public vote lists). */
export const walletUserId = (wallet: string) => `wallet:${wallet.toLowerCase()}`;
