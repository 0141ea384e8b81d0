/**
 * Votes: recording a reported vote (its check is the ledger's `vote` kind), and reading a wallet's
 * indexed votes on a pod in an epoch. Pods and subnets named by id
 * or token id are resolved in refs.ts.
 */
import type { Hash } from "viem";
import type { OffchainDb } from "../../db/client";
import { badRequest } from "../../http/errors";
import type { LedgerChainAccess } from "../../ledger/chain";
import type { Sender } from "../../ledger/kind";
import type { VoteClaim } from "../../ledger/kinds/vote";
import { record } from "../../ledger/ledger";
import { KINDS } from "../../ledger/registry";
import { indexedWalletVotesOnPod, type IndexedWalletVote } from "../repositories/indexed-votes";
import { insertReportedVote, unindexedReportedVoteExists } from "../repositories/reported-votes";

export { indexedPodExists } from "../repositories/indexed-votes";

/**
 * Records a vote reported by a user or an agent: the transaction is a successful PodManager `vote`
 * sent by the claimed voter whose `Voted` event names the pod (and, when given, the epoch, exact
 * raw votes and direction); it backs this record only. Returns the vote's id.
 */
export async function recordReportedVote(
  db: OffchainDb,
  context: LedgerChainAccess,
  {
    txHash,
    claim,
    by,
  }: {
    txHash: Hash;
    /** The voter and what they claim, made once the hash is known unused. */
    claim: () => (Sender & VoteClaim) | Promise<Sender & VoteClaim>;
    by: { userId?: string; agentId?: string; podKey: string; /** Sent with an agent's vote; stored on its row. */ feedback?: string };
  },
): Promise<string> {
  const { facts } = await record(db, context, KINDS.vote, {
    txHash,
    claim,
    accept: (vote) => {
      if (vote.epoch > 2_147_483_647n) throw badRequest("epoch out of range");
    },
    recordId: (vote) => vote.voteId,
    insert: (executor, vote) =>
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
        feedback: by.feedback ?? null,
      }),
  });
  return facts.voteId;
}

export type WalletVote = IndexedWalletVote;

/**
 * The wallet's votes on a pod in an epoch, from the indexed `Voted` events only: what rests on a
 * vote (feedback) rests on canonical indexed state, never on a report the chain may have dropped.
 */
export async function walletVotesOnPod(
  db: OffchainDb,
  { voter, podTokenId, epoch }: { voter: string; podTokenId: bigint; epoch: number },
): Promise<WalletVote[]> {
  return indexedWalletVotesOnPod(db, { voter, podTokenId, epoch });
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
