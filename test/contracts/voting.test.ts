import { beforeAll, describe, expect, it } from "vitest";
import type { Account } from "viem";
import { useDevnet } from "../support/chain";
import { CORE, DAY, eventOf, fundRoles, mintPod, publishSubnet, revertOf, stake, who } from "./helpers";

const MAX = 730n * DAY;
const VALIDITY = 2n; // epochs a mint or republish keeps a pod valid, counting the current one

describe("PodManager voting", () => {
  const devnet = useDevnet({ epochLengthSeconds: 3600, podValidityPeriod: Number(VALIDITY) });
  const p = () => devnet().protocol;
  let research: bigint; // curatorA's datanet
  let datasets: bigint; // curatorB's datanet

  const epoch = async () => BigInt(await p().currentEpoch());
  const vote = (voter: Account, podId: bigint, votes: bigint, up = true) =>
    p().write(voter, "PodManager", "vote", [podId, votes, up]);
  const powerOf = (account: Account) => p().read<bigint>("VeCore", "votingPowerOf", [account.address]);
  const cast = async (account: Account, e: bigint) =>
    p().read<bigint>("PodManager", "votesCastedByVoterForEpoch", [account.address, e]);
  const net = async (subnetId: bigint, e: bigint) =>
    p().read<bigint>("PodManager", "subnetPositiveNetVotes", [subnetId, e]);
  const grantAccess = async (subnetId: bigint, ...accounts: Account[]) => {
    for (const account of accounts) {
      await p().write(account, "SubnetManager", "accessSubnetWithCOREFee", [subnetId, account.address]);
    }
  };

  beforeAll(async () => {
    await fundRoles(p(), ["curatorA", "curatorB", "voter1", "voter2", "voter3", "buyer", "serverWallet"]);
    research = await publishSubnet(p(), who("curatorA"));
    datasets = await publishSubnet(p(), who("curatorB"));
    // maximum-duration locks: points equal the amount
    for (const [role, amount] of [
      ["voter1", CORE(1000)],
      ["voter2", CORE(2000)],
      ["voter3", CORE(500)],
      ["buyer", CORE(100)],
    ] as const) {
      await stake(p(), who(role), amount, MAX);
    }
    await grantAccess(research, who("voter1"), who("voter2"), who("voter3"));
    await grantAccess(datasets, who("voter1"), who("voter2"));
  });

  it("a vote exactly at the remaining budget passes and one wei more reverts InsufficientVotingPower()", async () => {
    const e = await epoch();
    const podId = await mintPod(p(), who("curatorB"), who("curatorB"), research);
    const voter = who("voter1");
    const power = await powerOf(voter);
    expect(power).toBe(CORE(1000));

    await vote(voter, podId, CORE(400));
    const remaining = power - CORE(400);
    // the live contracts' error, without arguments
    expect(await revertOf(vote(voter, podId, remaining + 1n))).toEqual({ errorName: "InsufficientVotingPower", args: [] });
    await expect(vote(voter, podId, remaining + 1n, false)).rejects.toThrow(/InsufficientVotingPower/);
    await vote(voter, podId, remaining, false);
    expect(await cast(voter, e)).toBe(power);
    await expect(vote(voter, podId, 1n)).rejects.toThrow(/InsufficientVotingPower/);
  });

  it("the vote budget resets in the next epoch", async () => {
    const voter = who("voter1");
    const before = await epoch();
    const podId = await mintPod(p(), who("curatorB"), who("curatorB"), research);
    const power = await powerOf(voter);
    const left = power - (await cast(voter, before));
    if (left > 0n) await vote(voter, podId, left); // spend whatever is left of this epoch's budget
    await expect(vote(voter, podId, 1n)).rejects.toThrow(/InsufficientVotingPower/);

    await p().advanceToNextEpoch();
    const next = await epoch();
    expect(await cast(voter, next)).toBe(0n);
    expect(await cast(voter, before)).toBe(power);
    await vote(voter, podId, power);
    expect(await cast(voter, next)).toBe(power);
    await expect(vote(voter, podId, 1n)).rejects.toThrow(/InsufficientVotingPower/);
  });

  it("a voter without access to the pod's datanet gets NoSubnetAccess until it buys access; the datanet owner needs none", async () => {
    const podId = await mintPod(p(), who("serverWallet"), who("voter2"), research);
    await expect(vote(who("buyer"), podId, CORE(1))).rejects.toThrow(/NoSubnetAccess/);
    await grantAccess(research, who("buyer"));
    await vote(who("buyer"), podId, CORE(1));
    expect(await p().read("SubnetManager", "hasSubnetAccess", [research, who("curatorA").address])).toBe(true);
    await stake(p(), who("curatorA"), CORE(10), MAX);
    await vote(who("curatorA"), podId, CORE(1));
    expect(await p().read("PodManager", "podUpVotes", [podId, await epoch()])).toBe(CORE(2));
  });

  it("voting on one's own pod reverts CannotVoteOwnPod", async () => {
    const podId = await mintPod(p(), who("serverWallet"), who("voter3"), research);
    await expect(vote(who("voter3"), podId, CORE(1))).rejects.toThrow(/CannotVoteOwnPod/);
    await expect(vote(who("voter3"), podId, CORE(1), false)).rejects.toThrow(/CannotVoteOwnPod/);
  });

  it("zero votes revert ZeroVotes and an unknown pod reverts UnknownPod", async () => {
    const podId = await mintPod(p(), who("curatorB"), who("curatorB"), research);
    await expect(vote(who("voter2"), podId, 0n)).rejects.toThrow(/ZeroVotes/);
    const unknown = (await p().read<bigint>("PodManager", "nextPodId")) + 3n;
    await expect(vote(who("voter2"), unknown, CORE(1))).rejects.toThrow(/UnknownPod/);
  });

  it("a pod whose validity period has elapsed reverts PodNotValid until it is republished", async () => {
    const mintEpoch = await epoch();
    const podId = await mintPod(p(), who("curatorB"), who("curatorB"), research);
    expect(await p().read("PodManager", "getPodValidityEpoch", [podId])).toBe(mintEpoch + VALIDITY - 1n);

    await p().advanceToNextEpoch(); // last valid epoch
    await vote(who("voter2"), podId, CORE(1));
    expect(await p().read("PodManager", "podValid", [podId])).toBe(true);

    await p().advanceToNextEpoch();
    const lapsed = await epoch();
    expect(await p().read("PodManager", "podValid", [podId])).toBe(false);
    expect(await p().read("PodManager", "podValidAt", [podId, lapsed - 1n])).toBe(true);
    await expect(vote(who("voter2"), podId, CORE(1))).rejects.toThrow(/PodNotValid/);

    const receipt = await p().write(who("curatorB"), "PodManager", "republishPod", [podId, research]);
    expect(eventOf<{ validityEpoch: bigint }>(p(), receipt, "PodManager", "PodRepublished").validityEpoch).toBe(
      lapsed + VALIDITY - 1n,
    );
    await vote(who("voter2"), podId, CORE(1));
    expect(await p().read("PodManager", "podUpVotes", [podId, lapsed])).toBe(CORE(1));
  });

  it("a pod invalidated by a moderator reverts PodNotValid for votes and republishing, and cannot be invalidated twice", async () => {
    const e = await epoch();
    const podId = await mintPod(p(), who("curatorB"), who("curatorB"), research);
    await vote(who("voter3"), podId, CORE(5));
    await expect(
      p().write(who("voter1"), "PodManager", "invalidatePod", [podId, "not a moderator"]),
    ).rejects.toThrow(/AccessControlUnauthorizedAccount/);

    const receipt = await p().write(who("deployer"), "PodManager", "invalidatePod", [podId, "spam"]);
    expect(eventOf(p(), receipt, "PodManager", "PodInvalidated")).toEqual({
      podId,
      fromEpoch: e,
      moderator: who("deployer").address,
      reason: "spam",
    });
    expect(await p().read("PodManager", "podValid", [podId])).toBe(false);
    await expect(vote(who("voter3"), podId, CORE(1))).rejects.toThrow(/PodNotValid/);
    await expect(p().write(who("curatorB"), "PodManager", "republishPod", [podId, research])).rejects.toThrow(
      /PodNotValid/,
    );
    await expect(p().write(who("deployer"), "PodManager", "invalidatePod", [podId, "again"])).rejects.toThrow(
      /PodAlreadyInvalid/,
    );
  });

  it("up and down votes are totalled per epoch for each pod and each voter", async () => {
    await p().advanceToNextEpoch();
    const e = await epoch();
    const podId = await mintPod(p(), who("curatorA"), who("curatorA"), datasets);
    const r1 = await vote(who("voter1"), podId, CORE(30));
    await vote(who("voter1"), podId, CORE(12), false);
    await vote(who("voter2"), podId, CORE(50));
    await vote(who("voter2"), podId, CORE(20));
    await vote(who("voter2"), podId, CORE(7), false);

    const read = (fn: string, args: unknown[]) => p().read<bigint>("PodManager", fn, args);
    expect(await read("podUpVotes", [podId, e])).toBe(CORE(100));
    expect(await read("podDownVotes", [podId, e])).toBe(CORE(19));
    expect(await read("voterUpVotes", [who("voter1").address, podId, e])).toBe(CORE(30));
    expect(await read("voterDownVotes", [who("voter1").address, podId, e])).toBe(CORE(12));
    expect(await read("voterUpVotes", [who("voter2").address, podId, e])).toBe(CORE(70));
    expect(await read("voterDownVotes", [who("voter2").address, podId, e])).toBe(CORE(7));
    expect(await read("podEpochSubnet", [podId, e])).toBe(datasets);
    expect(await cast(who("voter1"), e)).toBe(CORE(42));
    expect(await cast(who("voter2"), e)).toBe(CORE(77));
    expect(eventOf(p(), r1, "PodManager", "Voted")).toEqual({
      podId,
      voter: who("voter1").address,
      subnetId: datasets,
      epoch: e,
      votes: CORE(30),
      upVote: true,
      votingPower: CORE(1000),
    });

    // the previous and the next epoch are untouched
    expect(await read("podUpVotes", [podId, e - 1n])).toBe(0n);
    await p().advanceToNextEpoch();
    expect(await read("podUpVotes", [podId, e + 1n])).toBe(0n);
    expect(await read("podDownVotes", [podId, e + 1n])).toBe(0n);
    expect(await read("voterUpVotes", [who("voter2").address, podId, e + 1n])).toBe(0n);
  });

  it("subnetPositiveNetVotes sums max(up - down, 0) over the datanet's pods, also after a down vote flips a pod negative", async () => {
    await p().advanceToNextEpoch();
    const e = await epoch();
    const a = await mintPod(p(), who("curatorB"), who("curatorB"), research);
    const b = await mintPod(p(), who("serverWallet"), who("buyer"), research);
    const other = await mintPod(p(), who("curatorA"), who("curatorA"), datasets);

    await vote(who("voter1"), a, CORE(100));
    expect(await net(research, e)).toBe(CORE(100));
    await vote(who("voter2"), b, CORE(50));
    expect(await net(research, e)).toBe(CORE(150));
    await vote(who("voter3"), b, CORE(30), false); // b: 50 - 30 = 20
    expect(await net(research, e)).toBe(CORE(120));
    await vote(who("voter1"), b, CORE(40), false); // b: 50 - 70 < 0, counts 0
    expect(await net(research, e)).toBe(CORE(100));
    await vote(who("voter3"), b, CORE(10)); // b: 60 - 70 still negative
    expect(await net(research, e)).toBe(CORE(100));
    await vote(who("voter2"), b, CORE(15)); // b: 75 - 70 = 5
    expect(await net(research, e)).toBe(CORE(105));
    await vote(who("voter2"), a, CORE(100), false); // a: 100 - 100 = 0
    expect(await net(research, e)).toBe(CORE(5));

    // another datanet's votes are kept apart
    await vote(who("voter1"), other, CORE(9));
    expect(await net(datasets, e)).toBe(CORE(9));
    expect(await net(research, e)).toBe(CORE(5));

    // an invalidated pod's positive net leaves the sum
    await vote(who("voter2"), a, CORE(42)); // a: 142 - 100 = 42
    expect(await net(research, e)).toBe(CORE(47));
    await p().write(who("deployer"), "PodManager", "invalidatePod", [a, "duplicate"]);
    expect(await net(research, e)).toBe(CORE(5));
  });
});
