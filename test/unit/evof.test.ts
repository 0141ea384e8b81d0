import { describe, expect, it } from "vitest";
import { computeEvof } from "../../api/platform/services/evof";

describe("computeEvof", () => {
  it("is W² with W = ln(N) × Σ(√VPᵢ · votesᵢ) / V", () => {
    const voters = [
      { votingPower: 400, votes: 100 },
      { votingPower: 900, votes: 300 },
    ];
    const w = (Math.log(2) * (Math.sqrt(400) * 100 + Math.sqrt(900) * 300)) / 400;
    const result = computeEvof(voters);
    expect(result.voterCount).toBe(2);
    expect(result.totalVotes).toBe(400);
    expect(result.w).toBeCloseTo(w, 12);
    expect(result.evof).toBeCloseTo(w * w, 9);
  });

  it("uses the natural logarithm of the number of voters", () => {
    const voters = Array.from({ length: 3 }, () => ({ votingPower: 1, votes: 1 }));
    expect(computeEvof(voters).w).toBeCloseTo(Math.log(3), 12);
    expect(computeEvof(voters).evof).toBeCloseTo(Math.log(3) ** 2, 12);
  });

  it("is 0 with a single voter (ln 1 = 0)", () => {
    expect(computeEvof([{ votingPower: 1000, votes: 50 }])).toEqual({ voterCount: 1, totalVotes: 50, w: 0, evof: 0 });
  });

  it("is 0 without votes", () => {
    expect(computeEvof([])).toEqual({ voterCount: 0, totalVotes: 0, w: 0, evof: 0 });
    expect(computeEvof([{ votingPower: 5, votes: 0 }, { votingPower: 5, votes: 0 }])).toMatchObject({ w: 0, evof: 0 });
  });

  it("grows with the voters' voting power at equal votes", () => {
    const low = computeEvof([{ votingPower: 100, votes: 10 }, { votingPower: 100, votes: 10 }]);
    const high = computeEvof([{ votingPower: 400, votes: 10 }, { votingPower: 400, votes: 10 }]);
    expect(high.evof).toBeCloseTo(low.evof * 4, 9);
  });
});
