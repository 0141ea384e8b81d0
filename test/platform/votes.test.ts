/**
 * POST /pods/{podId}/votes (txHash rules with real votes on anvil) and
 * GET /public/pods/{podId}/votes/epochs/{epoch} (every indexed vote) through the real app.
 */
import { randomUUID } from "node:crypto";
import { count, eq } from "drizzle-orm";
import { keccak256, parseEther, toHex } from "viem";
import { beforeAll, describe, expect, it } from "vitest";
import { podDrafts, users, votesReported } from "../../api/db/offchain";
import { roleAccount } from "../../devnet/accounts";
import { eventually, listed, makeVoter, mintedPod, publishDatanet, voteOnChain, type Ref } from "./agents-harness";
import { badCookies, BASE, json, podDraftBody, usePlatformHarness, type Session } from "./harness";

const h = usePlatformHarness({ indexer: true });
const curatorA = roleAccount("curatorA");
const curatorB = roleAccount("curatorB");
const voter1 = roleAccount("voter1");
const voter2 = roleAccount("voter2");
const voter3 = roleAccount("voter3");

let owner: Session;
let publisher: Session;
let voter: Session;
let other: Session;
let walletless: Session;
let research: Ref;
let pod: Ref;
let pod2: Ref;
let ownDraft: string;

const votePath = (podId: string) => `${BASE}/pods/${podId}/votes`;
const publicPath = (podId: string, epoch: number | string) => `${BASE}/public/pods/${podId}/votes/epochs/${epoch}`;
const reportedCount = async () => (await h().store.db.select({ n: count() }).from(votesReported))[0]!.n;

beforeAll(async () => {
  owner = await h().signIn("owner", curatorA, "Olivia");
  publisher = await h().signIn("publisher", curatorB, "Paul");
  voter = await h().signIn("voter", voter1, "Vera");
  other = await h().signIn("other", voter2, "Otto");
  walletless = await h().signIn("walletless");
  for (const account of [curatorA, curatorB, voter1, voter2, voter3]) await h().fund(account);
  research = await publishDatanet(h(), owner, curatorA);
  pod = await mintedPod(h(), publisher, curatorB, research);
  pod2 = await mintedPod(h(), publisher, curatorB, research, { podName: "Second pod" });
  ownDraft = (await json(await voter.post(`${BASE}/me/pods`, podDraftBody(research.id)))).data.id;
  for (const account of [voter1, voter2, voter3]) await makeVoter(h(), account, [research]);
});

describe("POST /pods/{podId}/votes", () => {
  it("records the caller's confirmed vote and answers its public id", async () => {
    const { hash, logIndex, epoch } = await voteOnChain(h(), voter1, pod, parseEther("100.5"));
    const response = await voter.post(votePath(pod.id), { podId: pod.id, epoch, votes: 100.5, upVote: true, txHash: hash });
    expect(response.status).toBe(200);
    expect(await json(response)).toEqual({ data: { id: `${hash}-${logIndex}` } });
    const [row] = await h().store.db.select().from(votesReported).where(eq(votesReported.txHash, hash));
    expect(row).toMatchObject({
      podId: pod.id,
      podTokenId: String(pod.tokenId),
      voter: voter1.address.toLowerCase(),
      epoch,
      votes: parseEther("100.5").toString(),
      upVote: true,
    });
  });

  it("takes the pod by tokenId, down-votes and amounts down to one wei exactly", async () => {
    const { hash, epoch } = await voteOnChain(h(), voter1, pod2, 1n, false);
    const ref = String(pod2.tokenId);
    const response = await voter.post(votePath(ref), { podId: ref, epoch, votes: 1e-18, upVote: false, txHash: hash });
    expect(response.status).toBe(200);
  });

  it("rejects a reused transaction", async () => {
    const { hash, epoch } = await voteOnChain(h(), voter1, pod, parseEther("2"));
    const body = { podId: pod.id, epoch, votes: 2, upVote: true, txHash: hash };
    expect((await voter.post(votePath(pod.id), body)).status).toBe(200);
    const again = await voter.post(votePath(pod.id), body);
    expect(again.status).toBe(400);
    expect(await json(again)).toEqual({ error: "Transaction already used" });
  });

  describe("rejects a txHash that does not prove the vote (400, nothing stored)", () => {
    it.each([
      ["an unknown hash", async () => ({ txHash: keccak256(toHex("nothing")) }), /not found/],
      [
        "a reverted transaction",
        async () => ({ txHash: await h().sendReverted(voter1, "PodManager", "vote", [pod.tokenId, parseEther("1000000"), true]) }),
        /reverted/,
      ],
      [
        "a transaction of another kind on the PodManager",
        async () => {
          const receipt = await h().write(voter1, "PodManager", "mintPodWithCORE", [voter1.address, research.tokenId]);
          return { txHash: receipt.transactionHash };
        },
        /no Voted event/,
      ],
      [
        "a transaction to another contract",
        async () => {
          const p = h().devnet.protocol;
          const receipt = await h().write(voter1, "CoreToken", "approve", [p.address("PodManager"), 1n]);
          return { txHash: receipt.transactionHash };
        },
        /not a call to PodManager/,
      ],
      [
        "another wallet's vote",
        async () => ({ txHash: (await voteOnChain(h(), voter2, pod, parseEther("3"))).hash, votes: 3 }),
        /not sent by the caller/,
      ],
      [
        "a vote on another pod",
        async () => ({ txHash: (await voteOnChain(h(), voter1, pod2, parseEther("3"))).hash, votes: 3 }),
        /does not match/,
      ],
      [
        "other votes than claimed",
        async () => ({ txHash: (await voteOnChain(h(), voter1, pod, parseEther("0.3"))).hash, votes: 0.1 + 0.2 }),
        /does not match/,
      ],
      [
        "the other direction",
        async () => ({ txHash: (await voteOnChain(h(), voter1, pod, parseEther("3"), false)).hash, votes: 3 }),
        /does not match/,
      ],
      [
        "another epoch",
        async () => {
          const vote = await voteOnChain(h(), voter1, pod, parseEther("3"));
          return { txHash: vote.hash, votes: 3, epoch: vote.epoch + 1 };
        },
        /does not match/,
      ],
    ])("%s", async (_name, make, message) => {
      const epoch = await h().devnet.protocol.currentEpoch();
      const overrides = await make();
      const before = await reportedCount();
      const response = await voter.post(votePath(pod.id), { podId: pod.id, epoch, votes: 1, upVote: true, ...overrides });
      expect(response.status).toBe(400);
      expect((await json(response)).error).toMatch(message);
      expect(await reportedCount()).toBe(before);
    });
  });

  const hash = keccak256(toHex("any"));
  it.each([
    ["votes missing", { votes: undefined }],
    ["votes zero", { votes: 0 }],
    ["votes negative", { votes: -1 }],
    ["votes as a string", { votes: "1" }],
    ["votes beyond 18 decimals", { votes: 1e-19 }],
    ["epoch missing", { epoch: undefined }],
    ["epoch zero", { epoch: 0 }],
    ["epoch fractional", { epoch: 1.5 }],
    ["epoch as a string", { epoch: "1" }],
    ["upVote missing", { upVote: undefined }],
    ["upVote as a string", { upVote: "true" }],
    ["txHash missing", { txHash: undefined }],
    ["txHash malformed", { txHash: "0x1234" }],
    ["podId missing", { podId: undefined }],
  ])("answers 400 for %s", async (_name, override) => {
    const response = await voter.post(votePath(pod.id), { podId: pod.id, epoch: 1, votes: 1, upVote: true, txHash: hash, ...override });
    expect(response.status).toBe(400);
    expect(Object.keys(await json(response))).toEqual(["error"]);
  });

  it("answers 400 when the body's podId differs from the path", async () => {
    const response = await voter.post(votePath(pod.id), { podId: pod2.id, epoch: 1, votes: 1, upVote: true, txHash: hash });
    expect(await json(response)).toEqual({ error: "podId must match the path" });
  });

  it("answers 400 for a user without a wallet", async () => {
    const response = await walletless.post(votePath(pod.id), { podId: pod.id, epoch: 1, votes: 1, upVote: true, txHash: hash });
    expect(response.status).toBe(400);
    expect(await json(response)).toEqual({ error: "No wallet linked to this account" });
  });

  it("answers 400 for the caller's own unminted draft and 404 for someone else's", async () => {
    const body = { podId: ownDraft, epoch: 1, votes: 1, upVote: true, txHash: hash };
    const own = await voter.post(votePath(ownDraft), body);
    expect(own.status).toBe(400);
    expect(await json(own)).toEqual({ error: "Pod is not minted yet" });
    expect((await other.post(votePath(ownDraft), body)).status).toBe(404);
  });

  it.each([["an unknown id", randomUUID()], ["a malformed id", "pod-1"]])("answers 404 for %s", async (_name, id) => {
    const response = await voter.post(votePath(id), { podId: id, epoch: 1, votes: 1, upVote: true, txHash: hash });
    expect(response.status).toBe(404);
    expect(await json(response)).toEqual({ error: "Pod not found" });
  });

  it("answers 401 for every bad cookie", async () => {
    for (const cookie of await badCookies(h(), { sub: "voter", wallet: voter1.address })) {
      const response = await h().request(votePath(pod.id), {
        cookie,
        body: { podId: pod.id, epoch: 1, votes: 1, upVote: true, txHash: hash },
      });
      expect(response.status).toBe(401);
      expect(await json(response)).toEqual({ error: "Unauthorized" });
    }
  });
});

describe("GET /public/pods/{podId}/votes/epochs/{epoch}", () => {
  let fresh: Ref;
  let epoch: number;
  const votes: { hash: string; logIndex: number }[] = [];

  beforeAll(async () => {
    fresh = await mintedPod(h(), publisher, curatorB, research, { podName: "Public votes" });
    votes.push(await voteOnChain(h(), voter1, fresh, parseEther("10")));
    votes.push(await voteOnChain(h(), voter3, fresh, parseEther("0.25"), false));
    votes.push(await voteOnChain(h(), voter2, fresh, parseEther("7")));
    epoch = (await voteOnChain(h(), voter1, fresh, parseEther("1"))).epoch;
    await listed(h(), fresh);
    await eventually(async () => (await json(await h().request(publicPath(fresh.id, epoch)))).data?.podVotes?.length === 4);
  });

  it("lists every indexed vote in chain order, reported or not, without auth", async () => {
    const response = await h().request(publicPath(fresh.id, epoch));
    expect(response.status).toBe(200);
    const { data } = await json(response);
    expect(data.podVotes).toHaveLength(4);
    expect(data.podVotes[0]).toEqual({
      id: `${votes[0]!.hash}-${votes[0]!.logIndex}`,
      userId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      votes: 10,
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/),
      voter: voter1.address.toLowerCase(),
      epoch,
      upVote: true,
    });
    expect(data.podVotes[1]).toMatchObject({
      userId: `wallet:${voter3.address.toLowerCase()}`,
      votes: 0.25,
      upVote: false,
      voter: voter3.address.toLowerCase(),
    });
    expect(data.podVotes[2]).toMatchObject({ votes: 7, voter: voter2.address.toLowerCase() });
    // voters with a platform account show its user id
    const userIdOf = async (wallet: string) =>
      (await h().store.db.select({ id: users.id }).from(users).where(eq(users.walletAddress, wallet.toLowerCase())))[0]!.id;
    expect(data.podVotes[0].userId).toBe(await userIdOf(voter1.address));
    expect(data.podVotes[3].userId).toBe(await userIdOf(voter1.address));
    expect(data.podVotes[2].userId).toBe(await userIdOf(voter2.address));
    // the same list by token id
    expect(await json(await h().request(publicPath(String(fresh.tokenId), epoch)))).toEqual({ data });
  });

  it("answers an empty list for an epoch without votes", async () => {
    expect(await json(await h().request(publicPath(fresh.id, epoch + 5)))).toEqual({ data: { podVotes: [] } });
  });

  it("lists votes on a chain-only pod named by its tokenId", async () => {
    const p = h().devnet.protocol;
    const tokenId = await p.read<bigint>("PodManager", "nextPodId");
    await h().write(curatorB, "PodManager", "mintPodWithCORE", [curatorB.address, research.tokenId]);
    const vote = await voteOnChain(h(), voter3, { id: "", tokenId }, parseEther("4"));
    await h().caughtUp();
    await eventually(async () => (await h().request(publicPath(String(tokenId), vote.epoch))).status === 200);
    const { data } = await json(await h().request(publicPath(String(tokenId), vote.epoch)));
    expect(data.podVotes).toEqual([expect.objectContaining({ votes: 4, voter: voter3.address.toLowerCase() })]);
  });

  it.each(["0", "-1", "abc", "1.5", "99999999999"])("answers 400 for epoch %s", async (bad) => {
    const response = await h().request(publicPath(fresh.id, bad));
    expect(response.status).toBe(400);
    expect(Object.keys(await json(response))).toEqual(["error"]);
  });

  it("answers 404 for unknown, malformed, unminted, archived and unindexed pods", async () => {
    const archived = await mintedPod(h(), publisher, curatorB, research, { podName: "Archived pod" });
    await listed(h(), archived);
    await h().store.db.update(podDrafts).set({ archivedAt: new Date() }).where(eq(podDrafts.id, archived.id));
    for (const id of [randomUUID(), "not-a-pod", ownDraft, archived.id, String(archived.tokenId), "999999"]) {
      const response = await h().request(publicPath(id, 1));
      expect(response.status).toBe(404);
      expect(await json(response)).toEqual({ error: "Pod not found" });
    }
  });
});
