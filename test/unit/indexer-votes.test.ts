import { describe, expect, it } from "vitest";
import { applyInvalidation, applyRepublish, applyVote, positiveNet, type PodEpochVotes } from "../../src/lib/votes";

/**
 * A tiny model of PodManager's storage for one epoch, driven only by the pure functions, to
 * replay sequences the way the handlers do.
 */
function model() {
  const pods = new Map<bigint, PodEpochVotes>();
  const subnetNet = new Map<bigint, bigint>();
  const add = (subnetId: bigint, delta: bigint) => subnetNet.set(subnetId, (subnetNet.get(subnetId) ?? 0n) + delta);
  return {
    subnetNet,
    pods,
    vote(podId: bigint, subnetId: bigint, votes: bigint, upVote: boolean) {
      const { after, net } = applyVote(pods.get(podId), { subnetId, votes, upVote });
      pods.set(podId, after);
      add(net.subnetId, net.delta);
    },
    republish(podId: bigint, toSubnetId: bigint) {
      const current = pods.get(podId);
      const { subnetId, moves } = applyRepublish(current, toSubnetId);
      for (const move of moves) add(move.subnetId, move.delta);
      if (current) pods.set(podId, { ...current, subnetId });
    },
    invalidate(podId: bigint) {
      const delta = applyInvalidation(pods.get(podId));
      if (delta) add(delta.subnetId, delta.delta);
    },
  };
}

describe("positiveNet", () => {
  it("is up - down floored at zero", () => {
    expect(positiveNet(10n, 3n)).toBe(7n);
    expect(positiveNet(3n, 10n)).toBe(0n);
    expect(positiveNet(5n, 5n)).toBe(0n);
    expect(positiveNet(0n, 0n)).toBe(0n);
  });
});

describe("applyVote", () => {
  it("adds the vote and returns the change of the datanet's positive net", () => {
    const first = applyVote(undefined, { subnetId: 1n, votes: 100n, upVote: true });
    expect(first.after).toEqual({ subnetId: 1n, upVotes: 100n, downVotes: 0n });
    expect(first.net).toEqual({ subnetId: 1n, delta: 100n });

    const down = applyVote(first.after, { subnetId: 1n, votes: 150n, upVote: false });
    expect(down.after).toEqual({ subnetId: 1n, upVotes: 100n, downVotes: 150n });
    expect(down.net.delta).toBe(-100n);

    const stillNegative = applyVote(down.after, { subnetId: 1n, votes: 20n, upVote: true });
    expect(stillNegative.net.delta).toBe(0n);
    const back = applyVote(stillNegative.after, { subnetId: 1n, votes: 60n, upVote: true });
    expect(back.net.delta).toBe(30n);
  });

  it("records the pod's current datanet as the pod-epoch datanet", () => {
    const { after } = applyVote({ subnetId: 1n, upVotes: 5n, downVotes: 0n }, { subnetId: 2n, votes: 1n, upVote: true });
    expect(after.subnetId).toBe(2n);
  });
});

describe("applyRepublish", () => {
  it("moves the pod's positive net of the epoch to the new datanet", () => {
    const { subnetId, moves } = applyRepublish({ subnetId: 1n, upVotes: 40n, downVotes: 10n }, 2n);
    expect(subnetId).toBe(2n);
    expect(moves).toEqual([
      { subnetId: 1n, delta: -30n },
      { subnetId: 2n, delta: 30n },
    ]);
  });

  it("moves nothing without votes this epoch, into the same datanet, or from a net-negative pod (zero move)", () => {
    expect(applyRepublish(undefined, 2n)).toEqual({ subnetId: 0n, moves: [] });
    expect(applyRepublish({ subnetId: 2n, upVotes: 9n, downVotes: 0n }, 2n)).toEqual({ subnetId: 2n, moves: [] });
    const negative = applyRepublish({ subnetId: 1n, upVotes: 1n, downVotes: 9n }, 3n);
    expect(negative.subnetId).toBe(3n);
    expect(negative.moves.map((m) => m.delta)).toEqual([-0n, 0n]);
  });
});

describe("applyInvalidation", () => {
  it("removes the pod's positive net from the datanet its votes count for", () => {
    expect(applyInvalidation({ subnetId: 2n, upVotes: 30n, downVotes: 0n })).toEqual({ subnetId: 2n, delta: -30n });
    expect(applyInvalidation({ subnetId: 2n, upVotes: 3n, downVotes: 30n })).toEqual({ subnetId: 2n, delta: -0n });
    expect(applyInvalidation(undefined)).toBeUndefined();
  });
});

describe("replaying PodManager sequences", () => {
  it("keeps subnetPositiveNetVotes = sum of valid pods' positive nets per datanet", () => {
    const m = model();
    m.vote(1n, 1n, 100n, true);
    m.vote(1n, 1n, 300n, true);
    m.vote(1n, 1n, 20n, false);
    m.vote(2n, 1n, 150n, true);
    m.vote(3n, 2n, 80n, true);
    expect(m.subnetNet.get(1n)).toBe(380n + 150n);
    expect(m.subnetNet.get(2n)).toBe(80n);

    m.republish(2n, 2n); // pod 2 moves to datanet 2 with its 150
    expect(m.subnetNet.get(1n)).toBe(380n);
    expect(m.subnetNet.get(2n)).toBe(230n);
    m.vote(2n, 2n, 200n, false); // now net-negative: contributes 0
    expect(m.subnetNet.get(2n)).toBe(80n);

    m.invalidate(3n);
    expect(m.subnetNet.get(2n)).toBe(0n);
    m.invalidate(2n); // net-negative pod: nothing to remove
    expect(m.subnetNet.get(2n)).toBe(0n);
  });
});
