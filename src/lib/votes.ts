/**
 * PodManager's positive-net-vote bookkeeping, replayed from events. Pure module.
 *
 * The contract keeps, per datanet and epoch, `subnetPositiveNetVotes` = the sum over the
 * datanet's valid pods of max(up - down, 0) for that epoch, where a pod's votes of an epoch
 * count for the datanet recorded in `podEpochSubnet` (0 while the pod has no votes that epoch).
 */

export type PodEpochVotes = {
  /** podEpochSubnet[podId][epoch]; 0n when the pod has no votes in the epoch. */
  subnetId: bigint;
  upVotes: bigint;
  downVotes: bigint;
};

/** A change to one datanet's positive net votes of an epoch. */
export type NetDelta = { subnetId: bigint; delta: bigint };

export function positiveNet(up: bigint, down: bigint): bigint {
  return up > down ? up - down : 0n;
}

/**
 * `vote(podId, votes, upVote)` on a pod that now sits in `subnetId`: the pod's new totals and
 * the change to that datanet's positive net votes (the contract subtracts the old net and adds
 * the new one on the pod's current datanet, which `podEpochSubnet` then points at).
 */
export function applyVote(
  before: PodEpochVotes | undefined,
  vote: { subnetId: bigint; votes: bigint; upVote: boolean },
): { after: PodEpochVotes; net: NetDelta } {
  const up = before?.upVotes ?? 0n;
  const down = before?.downVotes ?? 0n;
  const after: PodEpochVotes = {
    subnetId: vote.subnetId,
    upVotes: vote.upVote ? up + vote.votes : up,
    downVotes: vote.upVote ? down : down + vote.votes,
  };
  const delta = positiveNet(after.upVotes, after.downVotes) - positiveNet(up, down);
  return { after, net: { subnetId: vote.subnetId, delta } };
}

/**
 * `republishPod(podId, toSubnetId)` in an epoch: when the pod has votes in the epoch recorded
 * for another datanet, its positive net moves from that datanet to the new one.
 * Returns the two changes (empty when nothing moves) and the pod-epoch's new datanet.
 */
export function applyRepublish(
  current: PodEpochVotes | undefined,
  toSubnetId: bigint,
): { subnetId: bigint; moves: NetDelta[] } {
  const votedIn = current?.subnetId ?? 0n;
  if (current === undefined || votedIn === 0n || votedIn === toSubnetId) return { subnetId: votedIn, moves: [] };
  const net = positiveNet(current.upVotes, current.downVotes);
  return {
    subnetId: toSubnetId,
    moves: [
      { subnetId: votedIn, delta: -net },
      { subnetId: toSubnetId, delta: net },
    ],
  };
}

/** `invalidatePod` in an epoch: the pod's positive net of that epoch leaves its datanet. */
export function applyInvalidation(current: PodEpochVotes | undefined): NetDelta | undefined {
  if (current === undefined || current.subnetId === 0n) return undefined;
  return { subnetId: current.subnetId, delta: -positiveNet(current.upVotes, current.downVotes) };
}
