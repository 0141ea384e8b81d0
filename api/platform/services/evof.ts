/**
 * EVOF, a pod's curation signal in one epoch (protocol notes):
 *   EVOF = W²,  W = ln(N) × Σᵢ (√VPᵢ · votesᵢ) / V
 * N = distinct voters of the pod in the epoch, VPᵢ = voter i's voting power, votesᵢ = the votes
 * voter i cast on the pod in the epoch (up and down together), V = Σᵢ votesᵢ. Amounts are
 * whole-token numbers. W is 0 when N ≤ 1 (ln 1 = 0) or V = 0. Pure module.
 * The dataset download takes VPᵢ as the voting power of voter i's last vote on the pod in the epoch.
 */

export type EvofVoter = {
  /** Voting power in whole tokens. */
  votingPower: number;
  /** Votes cast on the pod in the epoch, whole tokens. */
  votes: number;
};

export type Evof = {
  /** N: distinct voters. */
  voterCount: number;
  /** V: total votes on the pod in the epoch. */
  totalVotes: number;
  w: number;
  evof: number;
};

export function computeEvof(voters: readonly EvofVoter[]): Evof {
  const counted = voters.filter((v) => Number.isFinite(v.votes) && v.votes > 0);
  const n = counted.length;
  const totalVotes = counted.reduce((sum, v) => sum + v.votes, 0);
  if (n <= 1 || totalVotes <= 0) return { voterCount: n, totalVotes, w: 0, evof: 0 };
  const weighted = counted.reduce((sum, v) => sum + Math.sqrt(Math.max(0, v.votingPower)) * v.votes, 0);
  const w = (Math.log(n) * weighted) / totalVotes;
  return { voterCount: n, totalVotes, w, evof: w * w };
}
