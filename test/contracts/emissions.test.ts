import { beforeAll, describe, expect, it } from "vitest";
import type { Account, TransactionReceipt } from "viem";
import { useDevnet } from "../support/chain";
import {
  CORE,
  DAY,
  balanceOf,
  eventOf,
  fundRoles,
  mintPod,
  pair,
  publishSubnet,
  revertOf,
  stake,
  who,
} from "./helpers";

const MAX = 730n * DAY;

type Claimed = {
  podId: bigint;
  epoch: bigint;
  subnetId: bigint;
  sender: `0x${string}`;
  coreAmount: bigint;
  primaryAmount: bigint;
};

describe("PodManager emissions", () => {
  const devnet = useDevnet({ epochLengthSeconds: 3600, podValidityPeriod: 4 });
  const p = () => devnet().protocol;
  let research: bigint; // curatorA's datanet
  let datasets: bigint; // curatorB's datanet

  const voters = ["voter1", "voter2", "voter3", "treasury"] as const;

  /** Starts a fresh epoch so votes, budgets and net sums of earlier tests do not mix in. */
  const freshEpoch = async () => BigInt(await p().advanceToNextEpoch());
  const vote = (voter: Account, podId: bigint, votes: bigint, up = true) =>
    p().write(voter, "PodManager", "vote", [podId, votes, up]);
  const setEmissions = async (owner: Account, subnetId: bigint, core: bigint, primary: bigint) => {
    await p().write(owner, "SubnetManager", "setEmissionsPerEpochCORE", [subnetId, core]);
    await p().write(owner, "SubnetManager", "setEmissionsPerEpochPrimaryToken", [subnetId, primary]);
  };
  const podEmissions = (podId: bigint, e: bigint) => pair(p(), "PodManager", "podEmissions", [podId, e]);
  const ownerClaimable = (podId: bigint, e: bigint) => pair(p(), "PodManager", "podOwnerClaimable", [podId, e]);
  const voterClaimable = (voter: Account, podId: bigint, e: bigint) =>
    pair(p(), "PodManager", "voterClaimable", [voter.address, podId, e]);
  const pool = (subnetId: bigint) => pair(p(), "SubnetManager", "emissionPool", [subnetId]);
  const holdings = async (address: `0x${string}`) =>
    [await balanceOf(p(), "CoreToken", address), await balanceOf(p(), "DemoToken", address)] as const;

  const claimOwner = async (sender: Account, podId: bigint, e: bigint) => {
    const receipt = await p().write(sender, "PodManager", "claimPodOwnerEmissions", [podId, e]);
    return { receipt, event: eventOf<Claimed & { owner: `0x${string}` }>(p(), receipt, "PodManager", "PodOwnerEmissionsClaimed") };
  };
  const claimVoter = async (sender: Account, voter: Account, podId: bigint, e: bigint) => {
    const receipt = await p().write(sender, "PodManager", "claimVoterEmissions", [voter.address, podId, e]);
    return { receipt, event: eventOf<Claimed & { voter: `0x${string}` }>(p(), receipt, "PodManager", "VoterEmissionsClaimed") };
  };
  const paidBySubnetManager = (receipt: TransactionReceipt) =>
    eventOf<{ subnetId: bigint; to: `0x${string}`; coreAmount: bigint; primaryAmount: bigint }>(
      p(),
      receipt,
      "SubnetManager",
      "EmissionsPaid",
    );

  beforeAll(async () => {
    await fundRoles(p(), ["curatorA", "curatorB", "voter1", "voter2", "voter3", "treasury", "buyer", "serverWallet"]);
    research = await publishSubnet(p(), who("curatorA"));
    datasets = await publishSubnet(p(), who("curatorB"));
    await p().write(who("curatorA"), "SubnetManager", "seedEmissionPool", [research, CORE(200_000), CORE(200_000)]);
    await p().write(who("curatorB"), "SubnetManager", "seedEmissionPool", [datasets, CORE(200_000), CORE(200_000)]);
    // maximum-duration locks: voting power equals the amount
    for (const [role, amount] of [
      ["voter1", CORE(1000)],
      ["voter2", CORE(2000)],
      ["voter3", CORE(500)],
      ["treasury", CORE(5000)],
    ] as const) {
      await stake(p(), who(role), amount, MAX);
      for (const subnetId of [research, datasets]) {
        await p().write(who(role), "SubnetManager", "accessSubnetWithCOREFee", [subnetId, who(role).address]);
      }
    }
  });

  it("after an epoch closes, the datanet's emissions split across its valid pods by positive net votes and all claims sum to the emissions minus at most (number of pods + number of voters) wei of dust", async () => {
    const e = await freshEpoch();
    const E = { core: CORE(1000) + 1_237n, primary: CORE(333) + 1n };
    await setEmissions(who("curatorA"), research, E.core, E.primary);

    const pods = [
      await mintPod(p(), who("curatorB"), who("curatorB"), research),
      await mintPod(p(), who("serverWallet"), who("buyer"), research),
      await mintPod(p(), who("serverWallet"), who("serverWallet"), research, "PrimaryToken"),
      await mintPod(p(), who("curatorA"), who("curatorA"), research), // no votes at all
    ] as const;
    const [p1, p2, p3] = pods;
    await vote(who("voter1"), p1, CORE(317) + 3n);
    await vote(who("voter2"), p1, CORE(211) + 1n);
    await vote(who("voter3"), p2, CORE(97) + 5n);
    await vote(who("voter1"), p2, CORE(10) + 9n, false); // p2 stays positive
    await vote(who("treasury"), p3, CORE(50));
    await vote(who("voter2"), p3, CORE(61), false); // p3 negative: no share

    // nothing is claimable while the epoch is open
    expect(await ownerClaimable(p1, e)).toEqual([0n, 0n]);
    await freshEpoch();

    const nets = [CORE(528) + 4n, CORE(87) - 4n, 0n, 0n];
    const totalNet = nets.reduce((a, b) => a + b, 0n);
    expect(await p().read("PodManager", "subnetPositiveNetVotes", [research, e])).toBe(totalNet);

    let sharesCore = 0n;
    let sharesPrimary = 0n;
    for (const [i, podId] of pods.entries()) {
      const [c, pr] = await podEmissions(podId, e);
      expect([c, pr]).toEqual([(E.core * nets[i]!) / totalNet, (E.primary * nets[i]!) / totalNet]);
      sharesCore += c;
      sharesPrimary += pr;
    }
    expect(E.core - sharesCore).toBeLessThan(BigInt(pods.length));
    expect(E.primary - sharesPrimary).toBeLessThan(BigInt(pods.length));
    expect(E.core - sharesCore).toBeGreaterThan(0n); // the amounts are chosen so that rounding shows

    // claim everything that is due
    const [poolCoreBefore, poolPrimaryBefore] = await pool(research);
    let paidCore = 0n;
    let paidPrimary = 0n;
    for (const podId of pods) {
      const [c, pr] = await ownerClaimable(podId, e);
      if (c === 0n && pr === 0n) continue;
      const { event } = await claimOwner(who("serverWallet"), podId, e);
      paidCore += event.coreAmount;
      paidPrimary += event.primaryAmount;
      for (const voter of voters) {
        const [vc, vp] = await voterClaimable(who(voter), podId, e);
        if (vc === 0n && vp === 0n) continue;
        const { event: ve } = await claimVoter(who("serverWallet"), who(voter), podId, e);
        paidCore += ve.coreAmount;
        paidPrimary += ve.primaryAmount;
      }
    }
    const dustBound = BigInt(pods.length + voters.length);
    expect(paidCore).toBeLessThanOrEqual(E.core);
    expect(paidPrimary).toBeLessThanOrEqual(E.primary);
    expect(E.core - paidCore).toBeLessThanOrEqual(dustBound);
    expect(E.primary - paidPrimary).toBeLessThanOrEqual(dustBound);
    expect(await pool(research)).toEqual([poolCoreBefore - paidCore, poolPrimaryBefore - paidPrimary]);
  });

  it("the pod owner gets 50% of the pod's share and its up-voters the rest pro rata to their up-votes; down-voters get nothing", async () => {
    const e = await freshEpoch();
    await setEmissions(who("curatorA"), research, CORE(1200), CORE(600));
    const p1 = await mintPod(p(), who("curatorB"), who("curatorB"), research);
    const p2 = await mintPod(p(), who("buyer"), who("buyer"), research);
    await vote(who("voter1"), p1, CORE(100));
    await vote(who("voter2"), p1, CORE(200));
    await vote(who("voter3"), p2, CORE(150));
    await vote(who("voter1"), p2, CORE(50), false);
    await freshEpoch();

    // nets 300 and 100 of 400
    expect(await podEmissions(p1, e)).toEqual([CORE(900), CORE(450)]);
    expect(await podEmissions(p2, e)).toEqual([CORE(300), CORE(150)]);
    expect(await ownerClaimable(p1, e)).toEqual([CORE(450), CORE(225)]);
    expect(await voterClaimable(who("voter1"), p1, e)).toEqual([CORE(150), CORE(75)]);
    expect(await voterClaimable(who("voter2"), p1, e)).toEqual([CORE(300), CORE(150)]);
    expect(await ownerClaimable(p2, e)).toEqual([CORE(150), CORE(75)]);
    expect(await voterClaimable(who("voter3"), p2, e)).toEqual([CORE(150), CORE(75)]);
    expect(await voterClaimable(who("voter1"), p2, e)).toEqual([0n, 0n]);

    const { event } = await claimVoter(who("voter2"), who("voter2"), p1, e);
    expect([event.coreAmount, event.primaryAmount]).toEqual([CORE(300), CORE(150)]);
    await expect(
      p().write(who("voter1"), "PodManager", "claimVoterEmissions", [who("voter1").address, p2, e]),
    ).rejects.toThrow(/NothingToClaim/);
  });

  it("claims for an epoch that has not closed revert EpochNotClosed, and the views report nothing until it closes", async () => {
    const e = await freshEpoch();
    await setEmissions(who("curatorA"), research, CORE(100), CORE(10));
    const podId = await mintPod(p(), who("curatorB"), who("curatorB"), research);
    await vote(who("voter1"), podId, CORE(10));

    for (const epoch of [0n, e, e + 1n]) {
      await expect(
        p().write(who("curatorB"), "PodManager", "claimPodOwnerEmissions", [podId, epoch]),
      ).rejects.toThrow(/EpochNotClosed/);
      await expect(
        p().write(who("voter1"), "PodManager", "claimVoterEmissions", [who("voter1").address, podId, epoch]),
      ).rejects.toThrow(/EpochNotClosed/);
    }
    expect(await podEmissions(podId, e)).toEqual([CORE(100), CORE(10)]); // the share itself is already known
    expect(await ownerClaimable(podId, e)).toEqual([0n, 0n]);
    expect(await voterClaimable(who("voter1"), podId, e)).toEqual([0n, 0n]);

    await freshEpoch();
    expect(await ownerClaimable(podId, e)).toEqual([CORE(50), CORE(5)]);
    await claimOwner(who("curatorB"), podId, e);
    await claimVoter(who("voter1"), who("voter1"), podId, e);
  });

  it("each owner and voter claim pays once: a second claim reverts AlreadyClaimed and the views drop to zero", async () => {
    const e = await freshEpoch();
    await setEmissions(who("curatorA"), research, CORE(100), CORE(40));
    const podId = await mintPod(p(), who("curatorB"), who("curatorB"), research);
    await vote(who("voter3"), podId, CORE(10));
    await freshEpoch();

    await claimOwner(who("curatorB"), podId, e);
    await claimVoter(who("voter3"), who("voter3"), podId, e);
    expect(await p().read("PodManager", "hasPodOwnerClaimedEmissions", [e, podId])).toBe(true);
    expect(await p().read("PodManager", "hasUserClaimedEmissions", [e, podId, who("voter3").address])).toBe(true);
    expect(await ownerClaimable(podId, e)).toEqual([0n, 0n]);
    expect(await voterClaimable(who("voter3"), podId, e)).toEqual([0n, 0n]);

    for (const sender of [who("curatorB"), who("serverWallet")]) {
      await expect(p().write(sender, "PodManager", "claimPodOwnerEmissions", [podId, e])).rejects.toThrow(
        /AlreadyClaimed/,
      );
      await expect(
        p().write(sender, "PodManager", "claimVoterEmissions", [who("voter3").address, podId, e]),
      ).rejects.toThrow(/AlreadyClaimed/);
    }
  });

  it("the claimable views before a claim equal exactly what the claim transfers (CORE and primary-token balance deltas and event amounts)", async () => {
    const e = await freshEpoch();
    await setEmissions(who("curatorA"), research, CORE(777) + 13n, CORE(55) + 3n);
    const p1 = await mintPod(p(), who("curatorB"), who("curatorB"), research);
    const p2 = await mintPod(p(), who("buyer"), who("buyer"), research);
    await vote(who("voter1"), p1, CORE(13) + 1n);
    await vote(who("voter2"), p1, CORE(29));
    await vote(who("voter3"), p2, CORE(7));
    await freshEpoch();

    const check = async (
      recipient: Account,
      due: readonly [bigint, bigint],
      claim: () => Promise<{ receipt: TransactionReceipt; event: Claimed }>,
    ) => {
      expect(due[0]).toBeGreaterThan(0n);
      expect(due[1]).toBeGreaterThan(0n);
      const before = await holdings(recipient.address);
      const [poolCore, poolPrimary] = await pool(research);
      const { receipt, event } = await claim();
      const after = await holdings(recipient.address);
      expect([after[0] - before[0], after[1] - before[1]]).toEqual([...due]);
      expect([event.coreAmount, event.primaryAmount]).toEqual([...due]);
      expect(event.subnetId).toBe(research);
      expect(paidBySubnetManager(receipt)).toEqual({
        subnetId: research,
        to: recipient.address,
        coreAmount: due[0],
        primaryAmount: due[1],
      });
      expect(await pool(research)).toEqual([poolCore - due[0], poolPrimary - due[1]]);
    };

    for (const [podId, owner] of [
      [p1, who("curatorB")],
      [p2, who("buyer")],
    ] as const) {
      await check(owner, await ownerClaimable(podId, e), () => claimOwner(owner, podId, e));
    }
    for (const [podId, voter] of [
      [p1, who("voter1")],
      [p1, who("voter2")],
      [p2, who("voter3")],
    ] as const) {
      await check(voter, await voterClaimable(voter, podId, e), () => claimVoter(voter, voter, podId, e));
    }
  });

  it("claims sent by a third party pay the pod's current owner and the voter, not the sender", async () => {
    const e = await freshEpoch();
    await setEmissions(who("curatorA"), research, CORE(500), CORE(100));
    const podId = await mintPod(p(), who("serverWallet"), who("buyer"), research);
    await vote(who("voter2"), podId, CORE(40));
    await freshEpoch();

    const sender = who("serverWallet");
    const senderBefore = await holdings(sender.address);

    const voterBefore = await holdings(who("voter2").address);
    const { event: ve } = await claimVoter(sender, who("voter2"), podId, e);
    expect(ve).toMatchObject({ voter: who("voter2").address, sender: sender.address, podId, epoch: e });
    const voterAfter = await holdings(who("voter2").address);
    expect([voterAfter[0] - voterBefore[0], voterAfter[1] - voterBefore[1]]).toEqual([CORE(250), CORE(50)]);

    // the pod changes hands after the epoch: its current owner is paid
    await p().write(who("buyer"), "PodManager", "transferFrom", [who("buyer").address, who("curatorB").address, podId]);
    const ownerBefore = await holdings(who("curatorB").address);
    const previousOwner = await holdings(who("buyer").address);
    const { event: oe } = await claimOwner(sender, podId, e);
    expect(oe).toMatchObject({ owner: who("curatorB").address, sender: sender.address, podId, epoch: e });
    const ownerAfter = await holdings(who("curatorB").address);
    expect([ownerAfter[0] - ownerBefore[0], ownerAfter[1] - ownerBefore[1]]).toEqual([CORE(250), CORE(50)]);
    expect(await holdings(who("buyer").address)).toEqual(previousOwner);

    expect(await holdings(sender.address)).toEqual(senderBefore);
  });

  it("nothing due reverts NothingToClaim: a pod without votes, a negative pod, a voter who did not vote or only voted down", async () => {
    const e = await freshEpoch();
    await setEmissions(who("curatorA"), research, CORE(100), CORE(100));
    const quiet = await mintPod(p(), who("curatorB"), who("curatorB"), research);
    const negative = await mintPod(p(), who("buyer"), who("buyer"), research);
    const liked = await mintPod(p(), who("serverWallet"), who("serverWallet"), research);
    await vote(who("voter1"), negative, CORE(5));
    await vote(who("voter2"), negative, CORE(6), false);
    await vote(who("voter3"), liked, CORE(5));
    await vote(who("voter2"), liked, CORE(1), false);
    await freshEpoch();

    const owner = (podId: bigint) => p().write(who("serverWallet"), "PodManager", "claimPodOwnerEmissions", [podId, e]);
    const voter = (account: Account, podId: bigint) =>
      p().write(who("serverWallet"), "PodManager", "claimVoterEmissions", [account.address, podId, e]);

    await expect(owner(quiet)).rejects.toThrow(/NothingToClaim/);
    await expect(owner(negative)).rejects.toThrow(/NothingToClaim/);
    await expect(voter(who("voter1"), negative)).rejects.toThrow(/NothingToClaim/); // up-voted a pod with no share
    await expect(voter(who("voter2"), liked)).rejects.toThrow(/NothingToClaim/); // only voted down
    await expect(voter(who("treasury"), liked)).rejects.toThrow(/NothingToClaim/); // did not vote
    // the pod that is owed something still pays
    expect(await podEmissions(liked, e)).toEqual([CORE(100), CORE(100)]);
    await claimOwner(who("serverWallet"), liked, e);
    await claimVoter(who("serverWallet"), who("voter3"), liked, e);
    // an unknown pod is not a claim at all
    const unknown = (await p().read<bigint>("PodManager", "nextPodId")) + 9n;
    await expect(owner(unknown)).rejects.toThrow(/UnknownPod/);
  });

  it("an invalidated pod earns nothing from its invalidation epoch on and the other pods of its datanet share the whole emission", async () => {
    const e1 = await freshEpoch();
    await setEmissions(who("curatorA"), research, CORE(1000), CORE(200));
    const keep = await mintPod(p(), who("curatorB"), who("curatorB"), research);
    const flagged = await mintPod(p(), who("buyer"), who("buyer"), research);
    await vote(who("voter1"), keep, CORE(100));
    await vote(who("voter2"), flagged, CORE(300));
    const e2 = await freshEpoch();
    await vote(who("voter1"), keep, CORE(100));
    await vote(who("voter2"), flagged, CORE(300));
    await p().write(who("deployer"), "PodManager", "invalidatePod", [flagged, "plagiarism"]);
    expect(await p().read("PodManager", "subnetPositiveNetVotes", [research, e2])).toBe(CORE(100));
    await freshEpoch();

    // before the invalidation epoch the pod still earned its share
    expect(await podEmissions(flagged, e1)).toEqual([CORE(750), CORE(150)]);
    expect(await podEmissions(keep, e1)).toEqual([CORE(250), CORE(50)]);
    await claimOwner(who("buyer"), flagged, e1);
    await claimVoter(who("voter2"), who("voter2"), flagged, e1);

    // from the invalidation epoch on it earns nothing and the remaining pod takes everything
    expect(await p().read("PodManager", "podValidAt", [flagged, e2])).toBe(false);
    expect(await podEmissions(flagged, e2)).toEqual([0n, 0n]);
    expect(await ownerClaimable(flagged, e2)).toEqual([0n, 0n]);
    expect(await voterClaimable(who("voter2"), flagged, e2)).toEqual([0n, 0n]);
    await expect(
      p().write(who("buyer"), "PodManager", "claimPodOwnerEmissions", [flagged, e2]),
    ).rejects.toThrow(/NothingToClaim/);
    await expect(
      p().write(who("voter2"), "PodManager", "claimVoterEmissions", [who("voter2").address, flagged, e2]),
    ).rejects.toThrow(/NothingToClaim/);

    expect(await podEmissions(keep, e2)).toEqual([CORE(1000), CORE(200)]);
    expect((await claimOwner(who("curatorB"), keep, e2)).event.coreAmount).toBe(CORE(500));
    expect((await claimVoter(who("voter1"), who("voter1"), keep, e2)).event.coreAmount).toBe(CORE(500));
  });

  it("a republish into another datanet mid-epoch moves that epoch's votes, and the pod's share is paid from the new datanet", async () => {
    const e = await freshEpoch();
    await setEmissions(who("curatorA"), research, CORE(800), 0n);
    await setEmissions(who("curatorB"), datasets, CORE(600), CORE(60));
    const moving = await mintPod(p(), who("buyer"), who("buyer"), research);
    const staying = await mintPod(p(), who("serverWallet"), who("serverWallet"), research);
    const local = await mintPod(p(), who("curatorA"), who("curatorA"), datasets);
    await vote(who("voter1"), moving, CORE(100));
    await vote(who("voter2"), staying, CORE(300));
    await vote(who("voter3"), local, CORE(100));
    const net = (subnetId: bigint) => p().read<bigint>("PodManager", "subnetPositiveNetVotes", [subnetId, e]);
    expect([await net(research), await net(datasets)]).toEqual([CORE(400), CORE(100)]);

    const receipt = await p().write(who("buyer"), "PodManager", "republishPod", [moving, datasets]);
    expect(eventOf(p(), receipt, "PodManager", "PodRepublished")).toMatchObject({
      podId: moving,
      subnetId: datasets,
      previousSubnetId: research,
    });
    expect([await net(research), await net(datasets)]).toEqual([CORE(300), CORE(200)]);
    expect(await p().read("PodManager", "podEpochSubnet", [moving, e])).toBe(datasets);
    expect(await p().read("PodManager", "podSubnet", [moving])).toBe(datasets);

    // votes after the move count in the new datanet
    const voted = await vote(who("treasury"), moving, CORE(50));
    expect(eventOf<{ subnetId: bigint }>(p(), voted, "PodManager", "Voted").subnetId).toBe(datasets);
    expect([await net(research), await net(datasets)]).toEqual([CORE(300), CORE(250)]);
    await freshEpoch();

    expect(await podEmissions(staying, e)).toEqual([CORE(800), 0n]);
    expect(await podEmissions(moving, e)).toEqual([CORE(360), CORE(36)]); // 150 of 250
    expect(await podEmissions(local, e)).toEqual([CORE(240), CORE(24)]);

    const researchPool = await pool(research);
    const datasetsPool = await pool(datasets);
    const { receipt: claimed, event } = await claimOwner(who("buyer"), moving, e);
    expect(event.subnetId).toBe(datasets);
    expect(paidBySubnetManager(claimed).subnetId).toBe(datasets);
    expect(await pool(research)).toEqual(researchPool);
    expect(await pool(datasets)).toEqual([datasetsPool[0] - CORE(180), datasetsPool[1] - CORE(18)]);
    // up-votes cast before and after the move share the voters' half pro rata
    expect(await voterClaimable(who("voter1"), moving, e)).toEqual([CORE(120), CORE(12)]);
    expect(await voterClaimable(who("treasury"), moving, e)).toEqual([CORE(60), CORE(6)]);
  });

  it("emissions changed during an epoch apply from that epoch on (emissionsPerEpochAt), the last change in an epoch wins", async () => {
    const at = (subnetId: bigint, e: bigint) => pair(p(), "SubnetManager", "emissionsPerEpochAt", [subnetId, e]);
    const fresh = await publishSubnet(p(), who("curatorB"));
    await p().write(who("curatorB"), "SubnetManager", "seedEmissionPool", [fresh, CORE(10_000), CORE(10_000)]);
    for (const role of voters) {
      await p().write(who(role), "SubnetManager", "accessSubnetWithCOREFee", [fresh, who(role).address]);
    }
    const e1 = await freshEpoch();
    expect(await at(fresh, e1)).toEqual([0n, 0n]);
    const podId = await mintPod(p(), who("buyer"), who("buyer"), fresh);
    await vote(who("voter1"), podId, CORE(10));
    await setEmissions(who("curatorB"), fresh, CORE(100), CORE(10)); // after the vote, still for e1

    const e2 = await freshEpoch();
    await vote(who("voter1"), podId, CORE(10));
    const e3 = await freshEpoch();
    await vote(who("voter1"), podId, CORE(10));
    await setEmissions(who("curatorB"), fresh, CORE(300), CORE(30));
    await setEmissions(who("curatorB"), fresh, CORE(400), CORE(40));
    await freshEpoch();

    expect(await at(fresh, e1 - 1n)).toEqual([0n, 0n]);
    expect(await at(fresh, e1)).toEqual([CORE(100), CORE(10)]);
    expect(await at(fresh, e2)).toEqual([CORE(100), CORE(10)]);
    expect(await at(fresh, e3)).toEqual([CORE(400), CORE(40)]);
    expect(await at(fresh, e3 + 10n)).toEqual([CORE(400), CORE(40)]);

    // the pod alone earns its datanet's whole emission of each epoch
    expect(await podEmissions(podId, e1)).toEqual([CORE(100), CORE(10)]);
    expect(await podEmissions(podId, e2)).toEqual([CORE(100), CORE(10)]);
    expect(await podEmissions(podId, e3)).toEqual([CORE(400), CORE(40)]);
    expect((await claimOwner(who("buyer"), podId, e3)).event.coreAmount).toBe(CORE(200));
  });

  it("an underfunded emission pool makes the claim revert InsufficientEmissionPool while the views still report the amount due", async () => {
    const thin = await publishSubnet(p(), who("curatorA"));
    await p().write(who("curatorA"), "SubnetManager", "seedEmissionPool", [thin, CORE(30), 0n]);
    await p().write(who("voter3"), "SubnetManager", "accessSubnetWithCOREFee", [thin, who("voter3").address]);
    const e = await freshEpoch();
    await setEmissions(who("curatorA"), thin, CORE(100), CORE(50));
    const podId = await mintPod(p(), who("curatorB"), who("curatorB"), thin);
    await vote(who("voter3"), podId, CORE(1));
    await freshEpoch();

    const due = [CORE(50), CORE(25)] as const;
    for (let attempt = 0; attempt < 2; attempt++) {
      await expect(
        p().write(who("curatorB"), "PodManager", "claimPodOwnerEmissions", [podId, e]),
      ).rejects.toThrow(/InsufficientEmissionPool/);
      await expect(
        p().write(who("voter3"), "PodManager", "claimVoterEmissions", [who("voter3").address, podId, e]),
      ).rejects.toThrow(/InsufficientEmissionPool/);
      expect(await ownerClaimable(podId, e)).toEqual([...due]);
      expect(await voterClaimable(who("voter3"), podId, e)).toEqual([...due]);
      expect(await p().read("PodManager", "hasPodOwnerClaimedEmissions", [e, podId])).toBe(false);
      // enough CORE but still no primary token is not enough either
      if (attempt === 0) await p().write(who("curatorA"), "SubnetManager", "seedEmissionPool", [thin, CORE(100), 0n]);
    }
    expect(await pool(thin)).toEqual([CORE(130), 0n]);
    // the error names the amounts due and what the pools hold
    expect(await revertOf(p().write(who("curatorB"), "PodManager", "claimPodOwnerEmissions", [podId, e]))).toEqual({
      errorName: "InsufficientEmissionPool",
      args: [thin, due[0], CORE(130), due[1], 0n],
    });

    await p().write(who("curatorA"), "SubnetManager", "seedEmissionPool", [thin, 0n, CORE(50)]);
    const before = await holdings(who("curatorB").address);
    const { event } = await claimOwner(who("curatorB"), podId, e);
    expect([event.coreAmount, event.primaryAmount]).toEqual([...due]);
    const after = await holdings(who("curatorB").address);
    expect([after[0] - before[0], after[1] - before[1]]).toEqual([...due]);
    await claimVoter(who("voter3"), who("voter3"), podId, e);
    expect(await pool(thin)).toEqual([CORE(30), 0n]);
  });
});
