/**
 * The dataset download of a datanet (agents with a valid subscription): its publicly listed pods,
 * the indexed votes on them, the feedback stored with those votes, and each pod's EVOF per epoch.
 * Every array holds at most DATASET_MAX_ITEMS entries: pods newest minted first, votes and feedback
 * newest first, EVOFs newest epoch first then by token id.
 */
import { toTokenNumber } from "../../../chain/units";
import type { OffchainDb } from "../../db/client";
import { presentPublicPod } from "../presenters/pod";
import {
  listFeedbackOnPods,
  listVoteFeedbackOnPods,
  listVotesOnPods,
  voterAggregatesOnPods,
} from "../repositories/datasets";
import { listPublicPods } from "../repositories/pods";
import { computeEvof } from "./evof";
import { walletUserId } from "./votes";

export async function buildDataset(db: OffchainDb, { subnetTokenId, limit }: { subnetTokenId: bigint; limit: number }) {
  const { rows: podRows } = await listPublicPods(db, { offset: 0, limit, subnetTokenId });
  const draftIdOf = new Map(podRows.map((row) => [BigInt(row.tokenId!), row.id]));
  const tokenIds = [...draftIdOf.keys()];
  const [voteRows, feedbackRows, voteFeedbackRows, aggregates] = await Promise.all([
    listVotesOnPods(db, tokenIds, limit),
    listFeedbackOnPods(db, tokenIds, limit),
    listVoteFeedbackOnPods(db, tokenIds, limit),
    voterAggregatesOnPods(db, tokenIds, limit),
  ]);

  const votes = voteRows.map((row) => ({
    id: row.id,
    podId: draftIdOf.get(row.podId) ?? row.podId.toString(),
    tokenId: Number(row.podId),
    subnetTokenId: Number(row.subnetId),
    voter: row.voter,
    userId: row.userId ?? walletUserId(row.voter),
    epoch: Number(row.epoch),
    votes: toTokenNumber(row.votes),
    votingPower: toTokenNumber(row.votingPower),
    upVote: row.upVote,
    txHash: row.txHash,
    createdAt: new Date(Number(row.timestamp) * 1000).toISOString(),
  }));

  // a user's feedback goes with their votes on the pod in the epoch (no one vote: voteId null); an
  // agent's with the one vote it was sent with
  const entries = [
    ...feedbackRows.map((row) => ({ row, userId: row.userId, voteId: null, agentId: null, text: row.feedback })),
    ...voteFeedbackRows.map((row) => ({
      row,
      userId: row.userId ?? walletUserId(row.voter),
      voteId: row.voteId,
      agentId: row.agentId,
      text: row.feedback!,
    })),
  ].sort((a, b) => b.row.createdAt.getTime() - a.row.createdAt.getTime() || (a.row.id < b.row.id ? 1 : -1));
  const feedback = entries.slice(0, limit).map(({ row, userId, voteId, agentId, text }) => ({
    id: row.id,
    podId: row.podId,
    tokenId: Number(row.podTokenId),
    userId,
    voter: row.voter,
    epoch: row.epoch,
    upVote: row.upVote,
    votes: toTokenNumber(BigInt(row.votes)),
    votingPower: toTokenNumber(BigInt(row.votingPower)),
    feedback: text,
    voteId,
    agentId,
    createdAt: row.createdAt.toISOString(),
  }));

  const groups = new Map<string, { podId: bigint; epoch: bigint; voters: { votes: number; votingPower: number }[] }>();
  for (const row of aggregates) {
    const key = `${row.podId}:${row.epoch}`;
    let group = groups.get(key);
    if (!group) groups.set(key, (group = { podId: row.podId, epoch: row.epoch, voters: [] }));
    group.voters.push({ votes: toTokenNumber(row.votes), votingPower: toTokenNumber(row.votingPower) });
  }
  const evofs = [...groups.values()].map((group) => {
    const result = computeEvof(group.voters);
    return {
      podId: draftIdOf.get(group.podId) ?? group.podId.toString(),
      tokenId: Number(group.podId),
      epoch: Number(group.epoch),
      voterCount: result.voterCount,
      totalVotes: result.totalVotes,
      w: result.w,
      evof: result.evof,
    };
  });

  return { feedback, pods: podRows.map(presentPublicPod), votes, evofs };
}
