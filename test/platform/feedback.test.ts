/** POST /feedback/pods/{id}: feedback stored only with a matching vote of the caller's wallet (real votes on anvil). */
import { randomUUID } from "node:crypto";
import { count, eq } from "drizzle-orm";
import { parseEther } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toTokenNumber } from "../../chain/units";
import { feedback } from "../../api/db/offchain";
import { roleAccount } from "../../devnet/accounts";
import { eventually, listed, makeVoter, mintedPod, publishDatanet, voteOnChain, type Ref } from "./agents-harness";
import { badCookies, BASE, json, usePlatformHarness, type Session } from "./harness";

/**
 * The answer's body, shown when a status check fails, with the app's last warnings: CI saw a 503
 * "Database unavailable" three times, and the warnings name the database's error.
 */
const bodyOf = async (response: Response) => [await response.clone().text(), ...h().warnings.slice(-3)].join("\n");

const h = usePlatformHarness({ indexer: true });
const curatorA = roleAccount("curatorA");
const curatorB = roleAccount("curatorB");
const voter1 = roleAccount("voter1");
const voter2 = roleAccount("voter2");

let voter: Session;
let other: Session;
let walletless: Session;
let research: Ref;
let datasets: Ref;
let pod: Ref;
let unvoted: Ref;
let epoch: number;
let votingPower: number;

const path = (id: string) => `${BASE}/feedback/pods/${id}`;
const stored = async () => (await h().store.db.select({ n: count() }).from(feedback))[0]!.n;

function body(overrides: Record<string, unknown> = {}) {
  return {
    podId: pod.id,
    feedback: "Well sourced; the methods section could be clearer.",
    epoch,
    votingPower,
    upVote: true,
    privateSubnetId: research.id,
    votes: 150,
    ...overrides,
  };
}

// shown on CI even when every test passes: whether the pool met stale connections in this file
afterAll(() => {
  const retries = h().warnings.filter((line) => line.startsWith("read sent again"));
  if (retries.length > 0) console.log(`feedback: ${retries.length} read(s) sent again: ${retries.join("; ")}`);
});

beforeAll(async () => {
  const owner = await h().signIn("owner", curatorA);
  const publisher = await h().signIn("publisher", curatorB);
  voter = await h().signIn("voter", voter1, "Vera");
  other = await h().signIn("other", voter2, "Otto");
  walletless = await h().signIn("walletless");
  for (const account of [curatorA, curatorB, voter1, voter2]) await h().fund(account);
  research = await publishDatanet(h(), owner, curatorA, "Research");
  datasets = await publishDatanet(h(), owner, curatorA, "Datasets");
  pod = await mintedPod(h(), publisher, curatorB, research);
  unvoted = await mintedPod(h(), publisher, curatorB, research, { podName: "Not voted on" });
  for (const account of [voter1, voter2]) await makeVoter(h(), account, [research]);
  // voter1: two up-votes (100 + 50) and a down-vote (20) on the pod in this epoch
  const first = await voteOnChain(h(), voter1, pod, parseEther("100"));
  await voteOnChain(h(), voter1, pod, parseEther("50"));
  await voteOnChain(h(), voter1, pod, parseEther("20"), false);
  epoch = first.epoch;
  votingPower = toTokenNumber(first.votingPower);
  await listed(h(), pod);
  await eventually(
    async () => (await json(await h().request(`${BASE}/public/pods/${pod.id}/votes/epochs/${epoch}`))).data.podVotes.length === 3,
  );
});

describe("POST /feedback/pods/{id}", () => {
  it("stores feedback with the wallet's up-votes on the pod in the epoch (201 with its id)", async () => {
    expect(votingPower).toBe(500);
    const response = await voter.post(path(pod.id), body());
    expect(response.status, await bodyOf(response)).toBe(201);
    const { data } = await json(response);
    expect(data).toEqual({ id: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    const [row] = await h().store.db.select().from(feedback).where(eq(feedback.id, data.id));
    expect(row).toMatchObject({
      voter: voter1.address.toLowerCase(),
      podId: pod.id,
      podTokenId: String(pod.tokenId),
      subnetTokenId: String(research.tokenId),
      epoch,
      upVote: true,
      votes: parseEther("150").toString(),
      votingPower: parseEther("500").toString(),
      privateSubnetId: research.id,
    });
  });

  it("stores feedback with the down-votes, pod and datanet named by tokenId", async () => {
    const podRef = String(pod.tokenId);
    const response = await voter.post(
      path(podRef),
      body({ podId: podRef, upVote: false, votes: 20, privateSubnetId: String(research.tokenId) }),
    );
    expect(response.status, await bodyOf(response)).toBe(201);
  });

  it("answers 409 for a second feedback on the same vote direction", async () => {
    const response = await voter.post(path(pod.id), body({ feedback: "Changed my mind" }));
    expect(response.status, await bodyOf(response)).toBe(409);
    expect(await json(response)).toEqual({ error: "Feedback already stored for this vote" });
  });

  it.each([
    ["votes other than the wallet's total (one vote only)", { votes: 100 }, /votes does not match .*150/],
    ["votes just below the total", { votes: 149.999999 }, /votes does not match/],
    ["a voting power other than the vote's", { votingPower: 499.5 }, /votingPower does not match .*500/],
    ["another epoch", { epoch: 999 }, /No up-vote of the caller's wallet on this pod in epoch 999/],
    ["a datanet the vote did not count for", { privateSubnetId: "DATASETS" }, /privateSubnetId is not the datanet/],
    ["an unknown datanet", { privateSubnetId: randomUUID() }, /privateSubnetId is not the datanet/],
    ["votes beyond 18 decimals", { votes: 1e-19 }, /at most 18 decimals/],
  ])("answers 400 for %s, storing nothing", async (_name, override, message) => {
    const resolved = { ...override } as Record<string, unknown>;
    if (resolved.privateSubnetId === "DATASETS") resolved.privateSubnetId = datasets.id;
    const before = await stored();
    const response = await voter.post(path(pod.id), body({ feedback: "another", ...resolved }));
    const shown = await bodyOf(response);
    const answer = (await json(response)) as { error?: string };
    expect(response.status, shown).toBe(400);
    if (message) expect(answer.error).toMatch(message);
    expect(await stored()).toBe(before);
  });

  it("answers 400 when the wallet did not vote on the pod", async () => {
    const response = await voter.post(path(unvoted.id), body({ podId: unvoted.id }));
    expect(response.status, await bodyOf(response)).toBe(400);
    expect((await json(response)).error).toMatch(/No up-vote of the caller's wallet/);
  });

  it("answers 400 when another wallet claims the vote", async () => {
    const response = await other.post(path(pod.id), body({ upVote: false, votes: 20 }));
    expect(response.status, await bodyOf(response)).toBe(400);
    expect((await json(response)).error).toMatch(/No down-vote of the caller's wallet/);
  });

  const long = (n: number) => "x".repeat(n);
  it.each([
    ["feedback missing", { feedback: undefined }],
    ["feedback empty", { feedback: "" }],
    ["feedback blank", { feedback: "  " }],
    ["feedback over 5000", { feedback: long(5001) }],
    ["epoch zero", { epoch: 0 }],
    ["epoch fractional", { epoch: 2.5 }],
    ["votingPower zero", { votingPower: 0 }],
    ["votingPower negative", { votingPower: -5 }],
    ["votingPower as a string", { votingPower: "500" }],
    ["votes zero", { votes: 0 }],
    ["votes missing", { votes: undefined }],
    ["upVote as a string", { upVote: "yes" }],
    ["privateSubnetId missing", { privateSubnetId: undefined }],
    ["podId missing", { podId: undefined }],
  ])("answers 400 for %s", async (_name, override) => {
    const response = await voter.post(path(pod.id), body(override));
    expect(response.status, await bodyOf(response)).toBe(400);
    expect(Object.keys(await json(response))).toEqual(["error"]);
  });

  it("answers 400 when the body's podId differs from the path", async () => {
    const response = await voter.post(path(pod.id), body({ podId: unvoted.id }));
    expect(await json(response)).toEqual({ error: "podId must match the path" });
  });

  it("answers 400 for a user without a wallet", async () => {
    const response = await walletless.post(path(pod.id), body());
    expect(await json(response)).toEqual({ error: "No wallet linked to this account" });
  });

  it.each([["an unknown id", randomUUID()], ["a malformed id", "x-y"]])("answers 404 for %s", async (_name, id) => {
    const response = await voter.post(path(id), body({ podId: id }));
    expect(response.status, await bodyOf(response)).toBe(404);
    expect(await json(response)).toEqual({ error: "Pod not found" });
  });

  it("answers 401 for every bad cookie", async () => {
    for (const cookie of await badCookies(h(), { sub: "voter", wallet: voter1.address })) {
      const response = await h().request(path(pod.id), { cookie, body: body() });
      expect(response.status, await bodyOf(response)).toBe(401);
      expect(await json(response)).toEqual({ error: "Unauthorized" });
    }
  });
});
