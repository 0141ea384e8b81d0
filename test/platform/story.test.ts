/**
 * End-to-end story through the real platform app on anvil with the indexer:
 * datanet draft → publish on chain → fees and emissions → pod draft → mint → votes from two
 * wallets → feedback → comments → the public lists and stats show it with the right volumes.
 * The vote-report, feedback and comment steps use the engagement routes (§4.4).
 */
import { beforeAll, describe, expect, it } from "vitest";
import { toTokenNumber } from "../../chain/units";
import { roleAccount } from "../../devnet/accounts";
import { DAY } from "../../devnet/deploy";
import { BASE, CORE, json, podDraftBody, STATS_KEY, subnetDraftBody, usePlatformHarness, type Session } from "./harness";

const h = usePlatformHarness({ indexer: true });
const curator = roleAccount("curatorA");
const publisherAccount = roleAccount("curatorB");
const voterA = roleAccount("voter1");
const voterB = roleAccount("voter2");

let alice: Session; // datanet owner
let bob: Session; // pod publisher
let vera: Session; // voter
let walt: Session; // voter

const state: {
  subnetId?: string;
  subnetTokenId?: bigint;
  podId?: string;
  podTokenId?: bigint;
  epoch?: number;
  votes: Array<{ session: () => Session; hash: `0x${string}`; votes: number; upVote: boolean; votingPower: bigint }>;
} = { votes: [] };


beforeAll(async () => {
  alice = await h().signIn("alice", curator, "alice");
  bob = await h().signIn("bob", publisherAccount, "bob");
  vera = await h().signIn("vera", voterA, "vera");
  walt = await h().signIn("walt", voterB, "walt");
  for (const account of [curator, publisherAccount, voterA, voterB]) await h().fund(account);
});

describe("a datanet's life, end to end", () => {
  it("1. the curator creates a datanet draft and publishes it on chain", async () => {
    const p = h().devnet.protocol;
    const created = await alice.post(
      `${BASE}/me/subnets`,
      subnetDraftBody({ subnetName: "Arctic ice", subnetDescription: "Measurements of sea ice across the Arctic" }, p.address("DemoToken")),
    );
    expect(created.status).toBe(201);
    state.subnetId = (await json(created)).data.id;
    state.subnetTokenId = await p.read<bigint>("SubnetManager", "nextSubnetId");
    const { transactionHash } = await h().write(curator, "SubnetManager", "publishSubnet", [p.address("DemoToken")]);
    const published = await alice.post(`${BASE}/me/subnets/${state.subnetId}/publish`, {
      subnetId: state.subnetId,
      txHash: transactionHash,
    });
    expect(await json(published)).toEqual({ data: { success: true } });
  });

  it("2. sets its fees and emissions, each recorded from its verified transaction", async () => {
    const id = state.subnetId!;
    const steps: Array<[string, string, string, number]> = [
      ["setAccessFeeCORE", "access-fee/core", "accessFeeCORE", 10],
      ["setPublishingFeeCORE", "pod-publishing-fee/core", "publishingFeeCORE", 5],
      ["setRepublishingFeeCORE", "pod-republishing-fee/core", "republishingFeeCORE", 2],
      ["setEmissionsPerEpochCORE", "emissions-per-epoch/core", "emissionsPerEpochCORE", 1000],
      ["setEmissionsPerEpochPrimaryToken", "emissions-per-epoch/primary-token", "emissionsPerEpochPrimaryToken", 400.5],
    ];
    for (const [fn, path, field, amount] of steps) {
      const { transactionHash } = await h().write(curator, "SubnetManager", fn, [state.subnetTokenId, CORE(amount)]);
      const response = await alice.post(`${BASE}/me/subnets/${id}/${path}`, { subnetId: id, [field]: amount, txHash: transactionHash });
      expect(response.status, path).toBe(200);
    }
    await h().write(curator, "SubnetManager", "seedEmissionPool", [state.subnetTokenId, CORE(20_000), 0n]);
  });

  it("3. a publisher drafts a pod in it and mints it", async () => {
    const p = h().devnet.protocol;
    const created = await bob.post(
      `${BASE}/me/pods`,
      podDraftBody(state.subnetId!, { podName: "Sea ice extent 2024", podDescription: "Daily sea ice extent from satellite data" }),
    );
    expect(created.status).toBe(201);
    state.podId = (await json(created)).data.id;
    state.podTokenId = await p.read<bigint>("PodManager", "nextPodId");
    const { transactionHash } = await h().write(publisherAccount, "PodManager", "mintPodWithCORE", [publisherAccount.address, state.subnetTokenId]);
    const minted = await bob.post(`${BASE}/me/pods/${state.podId}/mint`, { podId: state.podId, txHash: transactionHash });
    expect(await json(minted)).toEqual({ data: { success: true } });
  });

  it("4. two wallets lock CORE, buy access and vote on the pod", async () => {
    const p = h().devnet.protocol;
    state.epoch = await p.currentEpoch();
    for (const [voter, session, votes, upVote] of [
      [voterA, () => vera, 100, true],
      [voterB, () => walt, 40, false],
    ] as const) {
      await h().write(voter, "VeCore", "stake", [CORE(1000), BigInt(365 * DAY)]);
      await h().write(voter, "SubnetManager", "accessSubnetWithCOREFee", [state.subnetTokenId, voter.address]);
      const votingPower = await p.read<bigint>("VeCore", "votingPowerOf", [voter.address]);
      const { transactionHash } = await h().write(voter, "PodManager", "vote", [state.podTokenId, CORE(votes), upVote]);
      state.votes.push({ session, hash: transactionHash, votes, upVote, votingPower });
    }
    await h().caughtUp();
    const mine = await json(await vera.get(`${BASE}/me/pods/votes/epochs/${state.epoch}`));
    expect(mine.data.pods.map((pod: { id: string }) => pod.id)).toEqual([state.podId]);
  });

  it("5. the voters report their votes to the platform", async () => {
    for (const vote of state.votes) {
      const response = await vote.session().post(`${BASE}/pods/${state.podId}/votes`, {
        podId: state.podId,
        epoch: state.epoch,
        votes: vote.votes,
        upVote: vote.upVote,
        txHash: vote.hash,
      });
      expect(response.status).toBe(200);
      expect((await json(response)).data.id).toEqual(expect.any(String));
    }
  });

  it("6. a voter stores written feedback with the vote", async () => {
    const [vote] = state.votes;
    const response = await vera.post(`${BASE}/feedback/pods/${state.podId}`, {
      podId: state.podId,
      feedback: "Clean series, sources cited.",
      epoch: state.epoch,
      votingPower: toTokenNumber(vote!.votingPower), // 1000 CORE locked for half the maximum: 500
      upVote: true,
      privateSubnetId: state.subnetId,
      votes: 100,
    });
    expect(response.status).toBe(201);
  });

  it("7. both voters comment; comments come back in creation order", async () => {
    for (const [session, comment] of [
      [vera, "Great dataset"],
      [walt, "Missing the 2023 baseline"],
    ] as const) {
      const response = await session.post(`${BASE}/pods/${state.podId}/comments`, { podId: state.podId, comment });
      expect(response.status).toBe(201);
    }
    const { data } = await json(await vera.get(`${BASE}/pods/${state.podId}/comments`));
    expect(data.comments.map((c: { comment: string }) => c.comment)).toEqual(["Great dataset", "Missing the 2023 baseline"]);
    expect(data.comments.map((c: { userName: string }) => c.userName)).toEqual(["vera", "walt"]);
  });

  it("8. the public lists show the pod and the datanet with the right volumes and values", async () => {
    await h().caughtUp();
    const pods = await json(await h().request(`${BASE}/public/pods?filters[subnet]=${state.subnetId}&search=sea%20ice`));
    expect(pods.data.pagination.total).toBe(1);
    expect(pods.data.pods[0]).toMatchObject({
      id: state.podId,
      tokenId: Number(state.podTokenId),
      privateSubnetId: state.subnetId,
      creator: { username: "bob" },
      cumulativeUpVotesVolume: 100,
      cumulativeDownVotesVolume: 40,
      podValidityEpoch: state.epoch! + 3,
    });
    const valid = await json(await h().request(`${BASE}/public/pods?filters[currentEpoch]=${state.epoch}`));
    expect(valid.data.pods.map((pod: { id: string }) => pod.id)).toContain(state.podId);

    const subnets = await json(await h().request(`${BASE}/public/subnets?search=arctic`));
    expect(subnets.data.subnets).toHaveLength(1);
    expect(subnets.data.subnets[0]).toMatchObject({
      id: state.subnetId,
      tokenId: Number(state.subnetTokenId),
      status: "active",
      accessFeeCORE: 10,
      emissionsPerEpochCORE: 1000,
      emissionsPerEpochPrimaryToken: 400.5,
      upVoteVolume: 100,
      downVoteVolume: 40,
    });

    const mine = await json(await bob.get(`${BASE}/me/pods/${state.podId}`));
    expect(mine.data.pod).toMatchObject({ status: "active", cumulativeUpVotesVolume: 100, cumulativeDownVotesVolume: 40 });
  });

  it("9. the stats count it", async () => {
    const stats = await json(await h().request(`${BASE}/stats/subnets/${state.subnetId}`, { headers: { Authorization: `Bearer ${STATS_KEY}` } }));
    expect(stats.data).toMatchObject({
      id: state.subnetId,
      subnetName: "Arctic ice",
      cumulativeUpVotes: 100,
      cumulativeDownVotes: 40,
      emissionsPerEpochCORE: 1000,
      activePodCount: 1,
      userAccessCount: 2,
      coreSeedsBySubnetOwnerAmount: 20_000,
      publishingFeeCORE: 5,
      accessFeeCORE: 10,
      estimatedTotalPublishingFeeCollectedUSD: 0.25, // one mint of 5 CORE at 0.05 USD
      estimatedTotalAccessFeeCollectedUSD: 1, // two accesses of 10 CORE
    });
    const network = await json(await h().request(`${BASE}/stats`));
    expect(network.data).toMatchObject({
      totalPods: 1,
      totalActiveSubnets: 1,
      activeSubnetIds: [{ id: state.subnetId }],
      totalLocks: 2,
      totalCoreLocked: 2000,
      communityLocked: 2000,
      governanceLocked: 0,
      averageLockedPerUser: 1000,
      totalUsers: 4,
      // creation 100 + publishing 5 + access 2 × 10
      totalSubnetFees: 125,
    });
  });
});
