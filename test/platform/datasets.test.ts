/** GET /agents/{agentId}/subnets/{subnetId}/datasets: only with a valid subscription; feedback, pods, votes, EVOFs. */
import { randomUUID } from "node:crypto";
import { gunzipSync } from "node:zlib";
import { eq } from "drizzle-orm";
import { parseEther } from "viem";
import { beforeAll, describe, expect, it } from "vitest";
import { podDrafts, subscriptionOrders } from "../../api/db/offchain";
import { roleAccount } from "../../devnet/accounts";
import { DAY } from "../../devnet/deploy";
import { appWithAgentsConfig, eventually, listed, makeVoter, mintedPod, publishDatanet, registerAgent, voteOnChain, type Agent, type Ref } from "./agents-harness";
import { BASE, json, usePlatformHarness, type Session } from "./harness";

const h = usePlatformHarness({ indexer: true });
const curatorA = roleAccount("curatorA");
const curatorB = roleAccount("curatorB");
const voter1 = roleAccount("voter1");
const voter2 = roleAccount("voter2");
const voter3 = roleAccount("voter3");

let research: Ref;
let elsewhere: Ref;
let podA: Ref;
let podB: Ref;
let archived: Ref;
let foreignPod: Ref;
let agent: Agent;
let voter: Session;
let epoch: number;
let feedbackId: string;

const path = (agentId: string, subnet: string) => `${BASE}/agents/${agentId}/subnets/${subnet}/datasets`;
const orders = (agentId: string, subnet: string) =>
  `${BASE}/agents/${agentId}/subnets/${subnet}/datasets/subscriptions/packages/monthly/orders`;

async function subscribe(who: Agent, subnet: Ref, request: (path: string, options: { body?: unknown }) => Promise<Response> = who.request) {
  const { transactionHash } = await h().write(who.account, "SubnetManager", "accessSubnetWithCOREFee", [
    subnet.tokenId,
    who.account.address,
  ]);
  const response = await request(orders(who.id, subnet.id), { body: { txHash: transactionHash } });
  expect(response.status).toBe(201);
  // the download rests on the indexed payment
  await h().caughtUp();
  return (await json(response)).data.orderId as string;
}

beforeAll(async () => {
  const owner = await h().signIn("owner", curatorA);
  const publisher = await h().signIn("publisher", curatorB);
  voter = await h().signIn("voter", voter1, "Vera");
  for (const account of [curatorA, curatorB, voter1, voter2, voter3]) await h().fund(account);
  research = await publishDatanet(h(), owner, curatorA, "Research");
  elsewhere = await publishDatanet(h(), owner, curatorA, "Elsewhere");
  await h().write(curatorA, "SubnetManager", "setAccessFeeCORE", [research.tokenId, parseEther("10")]);
  podA = await mintedPod(h(), publisher, curatorB, research, { podName: "Pod A" });
  podB = await mintedPod(h(), publisher, curatorB, research, { podName: "Pod B" });
  archived = await mintedPod(h(), publisher, curatorB, research, { podName: "Archived" });
  foreignPod = await mintedPod(h(), publisher, curatorB, elsewhere, { podName: "Elsewhere pod" });
  await h().store.db.update(podDrafts).set({ archivedAt: new Date() }).where(eq(podDrafts.id, archived.id));
  // voting power: 500, 1000 and 500 CORE
  for (const [account, amount] of [[voter1, "1000"], [voter2, "2000"], [voter3, "1000"]] as const) {
    await h().write(account, "VeCore", "stake", [parseEther(amount), BigInt(365 * DAY)]);
    for (const subnet of [research, elsewhere]) {
      await h().write(account, "SubnetManager", "accessSubnetWithCOREFee", [subnet.tokenId, account.address]);
    }
  }
  epoch = (await voteOnChain(h(), voter1, podA, parseEther("100"))).epoch;
  await voteOnChain(h(), voter2, podA, parseEther("300"));
  await voteOnChain(h(), voter3, podA, parseEther("20"), false);
  await voteOnChain(h(), voter2, podB, parseEther("5"));
  await voteOnChain(h(), voter1, foreignPod, parseEther("1"));
  await listed(h(), podA, podB, foreignPod);
  const stored = await voter.post(`${BASE}/feedback/pods/${podA.id}`, {
    podId: podA.id,
    feedback: "Solid data",
    epoch,
    votingPower: 500,
    upVote: true,
    privateSubnetId: research.id,
    votes: 100,
  });
  expect(stored.status).toBe(201);
  feedbackId = (await json(stored)).data.id;
  agent = await registerAgent(h(), { name: "Reader", description: "Downloads datasets" }, { funded: true });
});

describe("GET /agents/{agentId}/subnets/{subnetId}/datasets", () => {
  it("answers 403 Subscription required without an order", async () => {
    const response = await agent.request(path(agent.id, research.id));
    expect(response.status).toBe(403);
    expect(await json(response)).toEqual({ error: "Subscription required" });
  });

  it("answers the dataset with a VERIFIED order: the datanet's listed pods, their votes, feedback and EVOFs", async () => {
    await subscribe(agent, research);
    const response = await agent.request(path(agent.id, research.id));
    expect(response.status).toBe(200);
    const { data } = await json(response);
    expect(Object.keys(data).sort()).toEqual(["evofs", "feedback", "pods", "votes"]);

    // pods: newest minted first, not the archived one nor another datanet's
    expect(data.pods.map((p: { id: string }) => p.id)).toEqual([podB.id, podA.id]);
    expect(data.pods[1]).toMatchObject({ id: podA.id, tokenId: Number(podA.tokenId), name: "Pod A", cumulativeUpVotesVolume: 400, cumulativeDownVotesVolume: 20 });

    // votes: newest first
    expect(data.votes).toHaveLength(4);
    expect(data.votes.map((v: { votes: number }) => v.votes)).toEqual([5, 20, 300, 100]);
    expect(data.votes[3]).toEqual({
      id: expect.stringMatching(/^0x[0-9a-f]{64}-\d+$/),
      podId: podA.id,
      tokenId: Number(podA.tokenId),
      subnetTokenId: Number(research.tokenId),
      voter: voter1.address.toLowerCase(),
      userId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      epoch,
      votes: 100,
      votingPower: 500,
      upVote: true,
      txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      createdAt: expect.any(String),
    });
    expect(data.votes[0].userId).toBe(`wallet:${voter2.address.toLowerCase()}`);

    expect(data.feedback).toEqual([
      {
        id: feedbackId,
        podId: podA.id,
        tokenId: Number(podA.tokenId),
        userId: expect.any(String),
        voter: voter1.address.toLowerCase(),
        epoch,
        upVote: true,
        votes: 100,
        votingPower: 500,
        feedback: "Solid data",
        voteId: null,
        agentId: null,
        createdAt: expect.any(String),
      },
    ]);

    // EVOF = W², W = ln(N) × Σ(√VPᵢ · votesᵢ) / V
    const w = (Math.log(3) * (Math.sqrt(500) * 100 + Math.sqrt(1000) * 300 + Math.sqrt(500) * 20)) / 420;
    const evofA = data.evofs.find((e: { podId: string }) => e.podId === podA.id);
    expect(evofA).toMatchObject({ tokenId: Number(podA.tokenId), epoch, voterCount: 3, totalVotes: 420 });
    expect(evofA.w).toBeCloseTo(w, 9);
    expect(evofA.evof).toBeCloseTo(w * w, 6);
    expect(data.evofs.find((e: { podId: string }) => e.podId === podB.id)).toMatchObject({ voterCount: 1, w: 0, evof: 0 });
    expect(data.evofs).toHaveLength(2);
    // by token id, the same
    expect(await json(await agent.request(path(agent.id, String(research.tokenId))))).toEqual({ data });
  });

  it("bounds every array by the configured limit", async () => {
    const small = appWithAgentsConfig(h(), { datasetMaxItems: 1 });
    const { data } = await json(
      await small.request(path(agent.id, research.id), { headers: { Authorization: `Bearer ${agent.credential}` } }),
    );
    // the newest pod only, and what concerns it (pod B has a vote but no feedback)
    for (const key of ["pods", "votes", "evofs"]) expect(data[key]).toHaveLength(1);
    expect(data.pods[0].id).toBe(podB.id);
    expect(data.votes[0].votes).toBe(5);
    expect(data.feedback).toEqual([]);
  });

  it("answers 403 once the subscription expired, and for another datanet", async () => {
    const expiring = await registerAgent(h(), { name: "Expiring", description: "Short subscription" }, { funded: true });
    const orderId = await subscribe(expiring, research);
    expect((await expiring.request(path(expiring.id, research.id))).status).toBe(200);
    await h().store.db.update(subscriptionOrders).set({ expiresAt: new Date(Date.now() - 1_000) }).where(eq(subscriptionOrders.id, orderId));
    expect(await json(await expiring.request(path(expiring.id, research.id)))).toEqual({ error: "Subscription required" });
    expect((await expiring.request(path(expiring.id, elsewhere.id))).status).toBe(403);
  });

  it("verifies a CREATED order on download once its payment has the confirmations", async () => {
    const strict = appWithAgentsConfig(h(), { orderMinConfirmations: 2 });
    const patient = await registerAgent(h(), { name: "Patient", description: "Waits for confirmations" }, { funded: true });
    const headers = { Authorization: `Bearer ${patient.credential}` };
    const request = async (p: string, options: { body?: unknown } = {}) => strict.request(p, { ...options, headers });
    await subscribe(patient, research, request);
    expect((await request(path(patient.id, research.id))).status).toBe(403);
    await h().devnet.protocol.testClient.mine({ blocks: 1 });
    expect((await request(path(patient.id, research.id))).status).toBe(200);
  });

  it("builds at most DATASET_MAX_CONCURRENT downloads at once; a download of the same datanet meanwhile shares the build; past the queue, a flat 503 with Retry-After", async () => {
    const narrow = appWithAgentsConfig(h(), { datasetDownloads: { concurrency: 1, maxQueued: 0 } });
    const download = (subnet: Ref) => narrow.request(path(agent.id, subnet.id), { headers: { Authorization: `Bearer ${agent.credential}` } });
    await subscribe(agent, elsewhere);
    // the listed drafts locked: a download that reached its build waits there, holding the one slot
    const locker = await h().store.pool.connect();
    try {
      await locker.query("BEGIN");
      await locker.query("LOCK TABLE offchain.pod_drafts IN ACCESS EXCLUSIVE MODE");
      const first = download(research);
      await eventually(async () => {
        const waiting = await h().store.pool.query(
          "SELECT 1 FROM pg_locks l JOIN pg_class c ON c.oid = l.relation WHERE c.relname = 'pod_drafts' AND NOT l.granted",
        );
        return (waiting.rowCount ?? 0) > 0;
      });
      const shared = download(research);
      // operators see the slot taken (the latest app's bulkhead is the one reported)
      const metrics = await (await narrow.request("/metrics")).text();
      expect(metrics).toContain('datamarket_bulkhead_tasks{bulkhead="dataset_downloads",state="active"} 1');
      expect(metrics).toContain('datamarket_bulkhead_tasks{bulkhead="dataset_downloads",state="queued"} 0');
      const refused = await download(elsewhere);
      expect(refused.status).toBe(503);
      expect(refused.headers.get("Retry-After")).toBe("2");
      expect(await json(refused)).toEqual({ error: "Too many dataset downloads in progress; retry shortly" });
      await locker.query("COMMIT");
      const [built, joined] = await Promise.all([first, shared]);
      expect(built.status).toBe(200);
      expect(joined.status).toBe(200);
      expect(await json(joined)).toEqual(await json(built));
    } finally {
      await locker.query("ROLLBACK").catch(() => undefined);
      locker.release();
    }
    // the slot is free again
    expect((await download(elsewhere)).status).toBe(200);
  });

  it("answers a dataset built once per read version: an off-chain change shows on the next download", async () => {
    const download = async () => json(await agent.request(path(agent.id, research.id)));
    const podIds = (body: { data: { pods: Array<{ id: string }> } }) => body.data.pods.map((pod) => pod.id).sort();
    const before = await download();
    expect(podIds(before)).toEqual([podA.id, podB.id].sort());
    expect(await download()).toEqual(before);
    await h().store.db.update(podDrafts).set({ archivedAt: new Date() }).where(eq(podDrafts.id, podB.id));
    try {
      expect(podIds(await download())).toEqual([podA.id]);
    } finally {
      await h().store.db.update(podDrafts).set({ archivedAt: null }).where(eq(podDrafts.id, podB.id));
    }
    expect(podIds(await download())).toEqual([podA.id, podB.id].sort());
  });

  it("answers a client that accepts gzip with the same dataset gzip-encoded", async () => {
    const app = appWithAgentsConfig(h(), {});
    const get = (headers: Record<string, string>) =>
      app.request(path(agent.id, research.id), { headers: { Authorization: `Bearer ${agent.credential}`, ...headers } });
    const plain = await get({});
    expect(plain.headers.get("content-encoding")).toBeNull();
    const encoded = await get({ "Accept-Encoding": "gzip, deflate, br" });
    expect(encoded.status).toBe(200);
    expect(encoded.headers.get("content-encoding")).toBe("gzip");
    expect(encoded.headers.get("vary")).toContain("Accept-Encoding");
    expect(JSON.parse(gunzipSync(new Uint8Array(await encoded.arrayBuffer())).toString("utf8"))).toEqual(await json(plain));
  });

  it("answers 404 for an unknown datanet", async () => {
    for (const id of [randomUUID(), "nope"]) {
      const response = await agent.request(path(agent.id, id));
      expect(response.status).toBe(404);
      expect(await json(response)).toEqual({ error: "Datanet not found" });
    }
  });
});

describe("feedback an agent sends with its vote", () => {
  it("is stored with the vote and shown in the dataset download, tied to that vote", async () => {
    const critic = await registerAgent(h(), { name: "Critic", description: "Votes with notes" }, { funded: true });
    await makeVoter(h(), critic.account, [research]);
    await subscribe(critic, research);
    const votesPath = `${BASE}/agents/${critic.id}/pods/${podA.id}/votes`;
    const note = `Clear provenance${"!".repeat(2_000 - 16)}`;

    // over 2,000 characters: 400, nothing recorded, the same vote can still be recorded
    const vote = await voteOnChain(h(), critic.account, podA, parseEther("7"));
    const tooLong = await critic.request(votesPath, { body: { txHash: vote.hash, feedback: `${note}x` } });
    expect(tooLong.status).toBe(400);
    expect(await json(tooLong)).toEqual({ error: expect.stringMatching(/^feedback: /) });
    const recorded = await critic.request(votesPath, { body: { txHash: vote.hash, feedback: note } });
    expect(recorded.status).toBe(200);
    const voteId = `${vote.hash}-${vote.logIndex}`;
    expect(await json(recorded)).toEqual({ data: { id: voteId } });
    // a vote without feedback (or with "") adds no entry
    const plain = await voteOnChain(h(), critic.account, podA, parseEther("1"));
    expect((await critic.request(votesPath, { body: { txHash: plain.hash, feedback: "" } })).status).toBe(200);

    await h().caughtUp();
    const { data } = await json(await critic.request(path(critic.id, research.id)));
    const mine = data.feedback.filter((entry: { agentId: string | null }) => entry.agentId === critic.id);
    expect(mine).toEqual([
      {
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        podId: podA.id,
        tokenId: Number(podA.tokenId),
        userId: `wallet:${critic.walletAddress}`,
        voter: critic.walletAddress,
        epoch: vote.epoch,
        upVote: true,
        votes: 7,
        votingPower: Number(vote.votingPower / 10n ** 18n),
        feedback: note,
        voteId,
        agentId: critic.id,
        createdAt: expect.any(String),
      },
    ]);
    expect(data.votes.map((v: { id: string }) => v.id)).toContain(voteId);
    // the user's feedback is still there, newest first after the agent's
    expect(data.feedback.map((entry: { id: string }) => entry.id).at(-1)).toBe(feedbackId);
  });
});
