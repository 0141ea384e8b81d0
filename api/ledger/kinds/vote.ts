/** A vote reported by a user or an agent: `Voted` by the voter on the pod (and the claimed epoch, votes, direction). */
import { sql } from "drizzle-orm";
import type { Address, Hash } from "viem";
import { eventId } from "../../../src/lib/ids";
import { findReportedVoteByTx, moveReportedVoteStatements } from "../../platform/repositories/reported-votes";
import { contractEvent, type LedgerChainAccess } from "../chain";
import { changed, holds, recordKind, type Sender } from "../kind";

const Voted = contractEvent("PodManager", "Voted");

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

/** The pod, and when given the epoch, exact raw votes and direction. */
export type VoteClaim = { podTokenId: bigint; epoch?: bigint; votes?: bigint; upVote?: boolean };

async function verify(context: LedgerChainAccess, hash: Hash, { wallet, receipt, ...claim }: Sender & VoteClaim): Promise<VerifiedVote> {
  const { event } = await Voted.verify(context, {
    hash,
    receipt,
    from: wallet,
    matches: (args) =>
      args.podId === claim.podTokenId &&
      args.voter.toLowerCase() === wallet.toLowerCase() &&
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

export const vote = recordKind({
  name: "vote",
  on: Voted,
  stage: 2,
  verify,
  async recheck(db, context, { txHash }) {
    const row = await findReportedVoteByTx(db, txHash);
    if (!row) return changed("the reported vote is gone");
    const verified = await verify(context, txHash, {
      wallet: row.voter as Address,
      podTokenId: BigInt(row.podTokenId),
      epoch: BigInt(row.epoch),
      votes: BigInt(row.votes),
      upVote: row.upVote,
    });
    if (verified.subnetTokenId.toString() !== row.subnetTokenId)
      return changed(`the vote now counts for datanet ${verified.subnetTokenId}`);
    if (verified.votingPower.toString() !== row.votingPower) return changed("the vote's voting power changed");
    if (verified.logIndex === row.logIndex) return holds();
    // the same vote at another position in its block: its public id follows the indexer's
    return holds(moveReportedVoteStatements(txHash, eventId(txHash, verified.logIndex), verified.logIndex));
  },
  // the agent's feedback sent with the vote is on the same row
  undo: (txHash) => [sql`DELETE FROM offchain.votes_reported WHERE tx_hash = ${txHash}`],
});
