import { describe, expect, it } from "vitest";
import type { ClaimableRow } from "../../api/platform/repositories/claimable";
import { podEmissionsOf, shareOf, summarize } from "../../api/platform/services/claimable";

const TOKEN = "0xe7f1725e7734ce288f8367e1bb143e90bb3f0512";
const row = (over: Partial<ClaimableRow> = {}): ClaimableRow => ({
  kind: "owner",
  podId: 1n,
  epoch: 3n,
  voterUpVotes: 0n,
  subnetId: 1n,
  podUpVotes: 7n,
  podDownVotes: 2n,
  subnetPositiveNetVotes: 15n,
  mintEpoch: 1n,
  validityEpoch: 4n,
  invalidFromEpoch: null,
  primaryToken: TOKEN,
  coreRate: 1_000n,
  primaryRate: 10n,
  ...over,
});

describe("claimable emissions (PodManager's arithmetic)", () => {
  it("rounds each division down in the contract's order", () => {
    // podShare = 1000 * 5 / 15 = 333; owner = 333 * 5000 / 10000 = 166; voter = (333 - 166) * 3 / 7 = 71
    expect(shareOf(row())).toEqual({ core: 166n, primary: 1n });
    expect(shareOf(row({ kind: "voter", voterUpVotes: 3n }))).toEqual({ core: 71n, primary: 0n });
  });

  it("pays nothing outside the pod's validity, after an invalidation, or without a rate", () => {
    expect(podEmissionsOf(row({ epoch: 5n }))).toEqual({ core: 0n, primary: 0n });
    expect(podEmissionsOf(row({ invalidFromEpoch: 3n }))).toEqual({ core: 0n, primary: 0n });
    expect(podEmissionsOf(row({ invalidFromEpoch: 4n }))).toEqual({ core: 333n, primary: 3n });
    expect(podEmissionsOf(row({ coreRate: null, primaryRate: null }))).toEqual({ core: 0n, primary: 0n });
  });

  it("keeps the low 208 bits of a rate, as SubnetManager's Checkpoints.Trace208 does", () => {
    expect(podEmissionsOf(row({ coreRate: (1n << 208n) + 1_000n }))).toEqual(podEmissionsOf(row()));
  });

  it("groups owner and voter shares of one pod and epoch and totals them per token", () => {
    const result = summarize([row(), row({ kind: "voter", voterUpVotes: 3n }), row({ kind: "voter", epoch: 5n, voterUpVotes: 1n })]);
    expect(result.entries).toEqual([
      { podId: 1n, epoch: 3n, subnetId: 1n, primaryToken: TOKEN, owner: { core: 166n, primary: 1n }, voter: { core: 71n, primary: 0n } },
    ]);
    expect(result.totals).toEqual({
      core: { owner: 166n, voter: 71n, total: 237n },
      primary: [{ token: TOKEN, owner: 1n, voter: 0n, total: 1n }],
    });
  });
});
