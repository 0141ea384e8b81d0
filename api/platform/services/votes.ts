/**
 * Votes: verifying a `Voted` transaction, recording a reported vote, and reading a wallet's
 * indexed votes on a pod in an epoch. Pods and subnets named by id
 * or token id are resolved in refs.ts.
 */
import type { Address, Hash, TransactionReceipt } from "viem";
import { eventId } from "../../../src/lib/ids";
import type { OffchainDb } from "../../db/client";
import { badRequest } from "../../http/errors";
import { verifyOnChain, type PlatformContext } from "../context";
import { indexedWalletVotesOnPod } from "../repositories/indexed-votes";
import { insertReportedVote, unindexedReportedVoteExists } from "../repositories/reported-votes";
import { type Alongside, recordWithTransaction } from "./subnet-drafts";

export { assertTransactionUnused, recordWithTransaction } from "./subnet-drafts";
export { indexedPodExists } from "../repositories/indexed-votes";

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
  {
    hash,
    voter,
    claim,
    receipt,
  }: { hash: Hash; voter: Address; claim: VoteClaim; /** Already fetched by the caller. */ receipt?: TransactionReceipt },
): Promise<VerifiedVote> {
  const { event } = await verifyOnChain(context, "PodManager", {
    hash,
    receipt,
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
  alongside?: Alongside,
): Promise<string> {
  if (vote.epoch > 2_147_483_647n) throw badRequest("epoch out of range");
  await recordWithTransaction(db, { txHash: vote.txHash, kind: VOTE_TX_KIND, recordId: vote.voteId, alongside }, (executor) =>
    insertReportedVote(executor, {
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
  const indexed = await indexedWalletVotesOnPod(db, { voter, podTokenId, epoch });
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
  return unindexedReportedVoteExists(db, { voter, podTokenId, epoch, upVote });
}

/** Stable user id for a wallet without a platform account (public vote lists). */
export const walletUserId = (wallet: string) => `wallet:${wallet.toLowerCase()}`;
