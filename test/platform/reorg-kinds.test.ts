/**
 * Every kind of recorded transaction follows the canonical chain (api/reorgs), on anvil with the
 * indexer: the scenario (snapshot/revert onto a longer branch B) undoes every kind and
 * leaves only branch B's facts in the public API, each owner records their branch-B transactions;
 * an identical transaction re-mined by `anvil_reorg` is reconfirmed when its facts hold and undone
 * when they changed; a reorg while the service is down is acted on by the first pass after it.
 */
import { eq, inArray } from "drizzle-orm";
import type { Account, Hash, Hex } from "viem";
import { beforeAll, describe, expect, it, onTestFailed } from "vitest";
import { createChainClient } from "../../chain/client";
import type { ContractName } from "../../chain/deployments";
import { toTokenNumber } from "../../chain/units";
import { createDb } from "../../api/db/client";
import { boostsReported, reorgedRecords, subnetParameterUpdates, verifiedTransactions, votesReported } from "../../api/db/offchain";
import { createLogger } from "../../api/http/logger";
import { createPlatformApp } from "../../api/platform/app";
import { createRecordVerifiers } from "../../api/ledger/ledger";
import { observeReorgReconciler } from "../../api/http/metrics";
import { listFeedbackOnPods, listVoteFeedbackOnPods } from "../../api/platform/repositories/datasets";
import { createReorgReconciler, listReorgedRecords, reconcileOnce, reconcilerStats } from "../../api/reorgs/reconciler";
import { roleAccount } from "../../devnet/accounts";
import { eventually, listed, makeVoter, mintedPod, publishDatanet, registerAgent, type Agent, type Ref } from "./agents-harness";
import { BASE, CORE, json, podDraftBody, subnetDraftBody, usePlatformHarness, type Session } from "./harness";

const h = usePlatformHarness({ indexer: true });
const curatorA = roleAccount("curatorA");
const curatorB = roleAccount("curatorB");
const voter2 = roleAccount("voter2");
const voter3 = roleAccount("voter3");
const buyer = roleAccount("buyer");

let alice: Session; // curatorA
let bob: Session; // curatorB
let vic: Session; // voter2
let tess: Session; // voter3
let bea: Session; // buyer
let agent: Agent;
let research: Ref; // access fee 10
let second: Ref;
let backed: Ref; // a pod of bob's in research that voters vote on

const batchClient = () => createChainClient({ rpcUrl: h().devnet.chain.rpcUrl, local: true }, { batch: true });
const verifiers = () => createRecordVerifiers(h().store.db, h().runtime);
const pass = () => reconcileOnce(h().store.db, batchClient(), { verifiers: verifiers() });
const get = async (path: string) => h().request(`${BASE}${path}`);
const ordersPath = (subnet: Ref) => `${BASE}/agents/${agent.id}/subnets/${subnet.id}/datasets/subscriptions/packages/monthly/orders`;
const orderListPath = (subnet: Ref) => `${BASE}/agents/${agent.id}/subnets/${subnet.id}/datasets/subscriptions/packages/orders`;

const signed = (account: Account, contract: ContractName, functionName: string, args: readonly unknown[]) =>
  h().signed(account, contract, functionName, args);

async function sendRaw(raw: Hex) {
  const receipt = await h().sendRaw(raw);
  expect(receipt.status).toBe("success");
  return receipt;
}

/** `anvil_reorg`: replaces the last `depth` blocks with new ones holding `txs` ([raw, block offset]). */
async function anvilReorg(depth: number, txs: Array<[Hex, number]>) {
  const t = h().devnet.protocol.testClient;
  await t.request({ method: "anvil_reorg", params: [depth, txs] } as never);
  // the indexer sees the reorg when the next block names a parent it does not have
  await t.mine({ blocks: 1 });
  await h().caughtUp();
}

async function podDraft(session: Session, subnet: Ref, name: string): Promise<string> {
  const response = await session.post(`${BASE}/me/pods`, podDraftBody(subnet.id, { podName: name }));
  expect(response.status).toBe(201);
  return (await json(response)).data.id;
}

async function subnetDraft(session: Session, name: string): Promise<string> {
  const p = h().devnet.protocol;
  const response = await session.post(`${BASE}/me/subnets`, subnetDraftBody({ subnetName: name }, p.address("DemoToken")));
  expect(response.status).toBe(201);
  return (await json(response)).data.id;
}

const setFee = (session: Session, subnet: Ref, fee: number, txHash: Hash) =>
  session.post(`${BASE}/me/subnets/${subnet.id}/access-fee/core`, { subnetId: subnet.id, accessFeeCORE: fee, txHash });
const reportVote = (session: Session, pod: Ref, epoch: number, votes: number, txHash: Hash) =>
  session.post(`${BASE}/pods/${pod.id}/votes`, { podId: pod.id, epoch, votes, upVote: true, txHash });
const reportBoost = (session: Session, subnet: Ref, amount: string, txHash: Hash) =>
  session.post(`${BASE}/stakes/boost`, { amount, subnetId: subnet.id, txHash });
const feedbackOf = (session: Session, pod: Ref, epoch: number, votes: number, votingPower: bigint) =>
  session.post(`${BASE}/feedback/pods/${pod.id}`, {
    podId: pod.id,
    feedback: "Solid sources.",
    epoch,
    votingPower: toTokenNumber(votingPower),
    upVote: true,
    privateSubnetId: research.id,
    votes,
  });

beforeAll(async () => {
  alice = await h().signIn("alice", curatorA, "Alice");
  bob = await h().signIn("bob", curatorB, "Bob");
  vic = await h().signIn("vic", voter2, "Vic");
  tess = await h().signIn("tess", voter3, "Tess");
  bea = await h().signIn("bea", buyer, "Bea");
  for (const account of [curatorA, curatorB, voter2, voter3, buyer]) await h().fund(account);
  research = await publishDatanet(h(), alice, curatorA, "Research");
  second = await publishDatanet(h(), alice, curatorA, "Second");
  const fee = await h().write(curatorA, "SubnetManager", "setAccessFeeCORE", [research.tokenId, CORE(10)]);
  expect((await setFee(alice, research, 10, fee.transactionHash)).status).toBe(200);
  backed = await mintedPod(h(), bob, curatorB, research, { podName: "Backed pod" });
  agent = await registerAgent(h(), { name: "Branch bot", description: "Records on both branches" }, { funded: true });
  for (const account of [voter2, agent.account]) await makeVoter(h(), account, [research, second]);
  await listed(h(), backed);
  const first = await pass();
  expect(first.undone).toEqual([]);
  expect(first.pinned).toBeGreaterThan(0);
});

describe("the issue's scenario: branch A's records, then a longer branch B", () => {
  it("undoes every kind, shows only branch B's facts, and lets each owner record branch B", async () => {
    const p = h().devnet.protocol;
    const t = p.testClient;
    const snapshot = (await t.snapshot()) as Hex;
    const startHead = await p.publicClient.getBlockNumber({ cacheTime: 0 });

    // ---- branch A: every kind recorded ----
    const tokenN = await p.read<bigint>("PodManager", "nextPodId");
    const tessPod = await podDraft(tess, research, "Tess's pod");
    const tessMint = await h().write(voter3, "PodManager", "mintPodWithCORE", [voter3.address, research.tokenId]);
    expect((await tess.post(`${BASE}/me/pods/${tessPod}/mint`, { podId: tessPod, txHash: tessMint.transactionHash })).status).toBe(200);

    const vicVote = await h().write(voter2, "PodManager", "vote", [backed.tokenId, CORE(5), true]);
    const epoch = await p.currentEpoch();
    expect((await reportVote(vic, backed, epoch, 5, vicVote.transactionHash)).status).toBe(200);

    const beaBoost = await h().write(buyer, "SubnetManager", "boost", [research.tokenId, CORE(7)]);
    expect((await reportBoost(bea, research, "7", beaBoost.transactionHash)).status).toBe(201);

    const tokenM = await p.read<bigint>("SubnetManager", "nextSubnetId");
    const bobSubnet = await subnetDraft(bob, "Bob's datanet");
    const bobPublish = await h().write(curatorB, "SubnetManager", "publishSubnet", [p.address("DemoToken")]);
    const published = await bob.post(`${BASE}/me/subnets/${bobSubnet}/publish`, { subnetId: bobSubnet, txHash: bobPublish.transactionHash });
    expect(published.status).toBe(200);

    const fee11 = await h().write(curatorA, "SubnetManager", "setAccessFeeCORE", [research.tokenId, CORE(11)]);
    expect((await setFee(alice, research, 11, fee11.transactionHash)).status).toBe(200);

    // the agent's records: a pod, a vote, a subscription order (paying the fee of 11)
    const agentMint = await h().write(agent.account, "PodManager", "mintPodWithCORE", [agent.walletAddress, research.tokenId]);
    const agentPod = await agent.request(`${BASE}/agents/${agent.id}/pods`, {
      body: { ...podDraftBody(research.id, { podName: "Agent's pod" }), txHash: agentMint.transactionHash },
    });
    expect(agentPod.status).toBe(201);
    const agentVote = await h().write(agent.account, "PodManager", "vote", [backed.tokenId, CORE(3), true]);
    const agentVoted = await agent.request(`${BASE}/agents/${agent.id}/pods/${backed.id}/votes`, {
      body: { txHash: agentVote.transactionHash, feedback: "Sent with the agent's vote" },
    });
    expect(agentVoted.status).toBe(200);
    const payment = await h().write(agent.account, "SubnetManager", "accessSubnetWithCOREFee", [research.tokenId, agent.walletAddress]);
    expect((await agent.request(ordersPath(research), { body: { txHash: payment.transactionHash } })).status).toBe(201);

    // bob moves the backed pod into the second datanet
    const republish = await h().write(curatorB, "PodManager", "republishPod", [backed.tokenId, second.tokenId]);
    expect((await bob.post(`${BASE}/me/pods/${backed.id}/republish`, { podId: backed.id, txHash: republish.transactionHash })).status).toBe(200);

    await h().caughtUp();
    expect((await json(await get(`/public/pods/${backed.id}`))).data.pod).toMatchObject({ privateSubnetId: second.id });
    // vic's feedback on the vote it made (indexed now)
    expect((await feedbackOf(vic, backed, epoch, 5, await p.read<bigint>("VeCore", "votingPowerOf", [voter2.address]))).status).toBe(201);
    expect((await listFeedbackOnPods(h().store.db, [backed.tokenId], 100)).map((row) => row.voter)).toEqual([voter2.address.toLowerCase()]);
    expect((await listVoteFeedbackOnPods(h().store.db, [backed.tokenId], 100)).map((row) => row.feedback)).toEqual(["Sent with the agent's vote"]);
    expect((await json(await get(`/public/pods/${tokenN}`))).data.pod).toMatchObject({ id: tessPod, creator: { username: "Tess" } });
    expect((await json(await get(`/public/subnets/${tokenM}`))).data.subnet).toMatchObject({ id: bobSubnet, subnetName: "Bob's datanet" });
    // a pass checks every branch-A record again and undoes nothing
    const onA = await pass();
    expect(onA.undone).toEqual([]);
    const recordedA = [tessMint, vicVote, beaBoost, bobPublish, fee11, agentMint, agentVote, payment, republish].map((r) =>
      r.transactionHash.toLowerCase(),
    );
    const pinned = await h().store.db.select().from(verifiedTransactions).where(inArray(verifiedTransactions.txHash, recordedA));
    expect(pinned.map((row) => row.blockHash)).not.toContain(null);
    const branchALength = (await p.publicClient.getBlockNumber({ cacheTime: 0 })) - startHead;

    // ---- branch B (longer): token N is voter2's in the second datanet, datanet M is alice's, the fee stays 10 ----
    await t.revert({ id: snapshot });
    const vicMint = await h().write(voter2, "PodManager", "mintPodWithCORE", [voter2.address, second.tokenId]);
    const alicePublish = await h().write(curatorA, "SubnetManager", "publishSubnet", [p.address("DemoToken")]);
    await t.mine({ blocks: Number(branchALength) });
    await h().caughtUp();
    expect(await p.read<bigint>("PodManager", "nextPodId")).toBe(tokenN + 1n);

    // before any pass: nothing off-chain is shown on what the chain now says is someone else's
    for (const ref of [String(tokenN), tessPod]) expect((await get(`/public/pods/${ref}`)).status).toBe(404);
    for (const ref of [String(tokenM), bobSubnet]) expect((await get(`/public/subnets/${ref}`)).status).toBe(404);
    // the reorged republish: the pod names the datanet it is indexed in, not the one recorded on branch A
    expect((await json(await get(`/public/pods/${backed.id}`))).data.pod).toMatchObject({ privateSubnetId: research.id });
    const early = await feedbackOf(vic, backed, epoch, 5, await p.read<bigint>("VeCore", "votingPowerOf", [voter2.address]));
    expect(early.status).toBe(409);
    expect(early.headers.get("Retry-After")).toBe("2");
    expect(await json(early)).toEqual({ error: "Vote not indexed yet; retry shortly" });
    expect((await agent.request(`${BASE}/agents/${agent.id}/subnets/${research.id}/datasets`)).status).toBe(409);

    const result = await pass();
    expect(result.reconfirmed).toEqual([]);
    expect(result.undone.map((r) => [r.kind, r.txHash, r.reason]).sort()).toEqual(
      [
        ["pod-mint", tessMint.transactionHash, "dropped"],
        ["pod-mint", agentMint.transactionHash, "dropped"],
        ["vote", vicVote.transactionHash, "dropped"],
        ["vote", agentVote.transactionHash, "dropped"],
        ["boost", beaBoost.transactionHash, "dropped"],
        ["subnet-publish", bobPublish.transactionHash, "dropped"],
        ["subnet-parameter", fee11.transactionHash, "dropped"],
        ["subscription-order", payment.transactionHash, "dropped"],
        ["pod-republish", republish.transactionHash, "dropped"],
      ].sort(),
    );
    const listing = await listReorgedRecords(h().store.db);
    expect(listing.filter((r) => recordedA.includes(r.txHash)).map((r) => r.outcome)).toEqual(Array(9).fill("undone"));

    // ---- the public API shows branch B only ----
    for (const ref of [String(tokenN), tessPod]) expect((await get(`/public/pods/${ref}`)).status).toBe(404);
    for (const ref of [String(tokenM), bobSubnet]) expect((await get(`/public/subnets/${ref}`)).status).toBe(404);
    expect((await json(await tess.get(`${BASE}/me/pods/${tessPod}`))).data.pod.tokenId).toBeNull();
    expect((await json(await bob.get(`${BASE}/me/subnets/${bobSubnet}`))).data.subnet.tokenId).toBeNull();
    expect((await json(await get(`/public/subnets/${research.id}`))).data.subnet.accessFeeCORE).toBe(10);
    const backedNow = (await json(await get(`/public/pods/${backed.id}`))).data.pod;
    expect(backedNow).toMatchObject({ privateSubnetId: research.id, cumulativeUpVotesVolume: 0 });
    expect((await json(await get(`/public/pods/${backed.id}/votes/epochs/${epoch}`))).data.podVotes).toEqual([]);
    const phantom = await feedbackOf(vic, backed, epoch, 5, await p.read<bigint>("VeCore", "votingPowerOf", [voter2.address]));
    expect(phantom.status).toBe(400);
    expect((await json(phantom)).error).toMatch(/No up-vote of the caller's wallet/);
    // the feedback stored on branch A rests on a vote the chain no longer has: the dataset leaves it out
    expect(await listFeedbackOnPods(h().store.db, [backed.tokenId], 100)).toEqual([]);
    // the feedback an agent sent with its vote went with the vote's row
    expect(await listVoteFeedbackOnPods(h().store.db, [backed.tokenId], 100)).toEqual([]);
    expect((await json(await agent.request(orderListPath(research)))).data.orders).toEqual([]);
    expect((await agent.request(`${BASE}/agents/${agent.id}/subnets/${research.id}/datasets`)).status).toBe(403);
    const db = h().store.db;
    expect(await db.select().from(votesReported).where(inArray(votesReported.txHash, recordedA))).toEqual([]);
    expect(await db.select().from(boostsReported).where(inArray(boostsReported.txHash, recordedA))).toEqual([]);
    expect(await db.select().from(subnetParameterUpdates).where(inArray(subnetParameterUpdates.txHash, recordedA))).toEqual([]);

    // ---- each owner records their branch-B transaction ----
    const vicPod = await podDraft(vic, second, "Vic's pod");
    expect((await vic.post(`${BASE}/me/pods/${vicPod}/mint`, { podId: vicPod, txHash: vicMint.transactionHash })).status).toBe(200);
    const aliceSubnet = await subnetDraft(alice, "Alice's datanet");
    const alicePublished = await alice.post(`${BASE}/me/subnets/${aliceSubnet}/publish`, {
      subnetId: aliceSubnet,
      txHash: alicePublish.transactionHash,
    });
    expect(alicePublished.status).toBe(200);
    expect((await json(await get(`/public/pods/${tokenN}`))).data.pod).toMatchObject({
      id: vicPod,
      privateSubnetId: second.id,
      creator: { username: "Vic" },
    });
    expect((await json(await get(`/public/subnets/${tokenM}`))).data.subnet).toMatchObject({ id: aliceSubnet, subnetName: "Alice's datanet" });
    // tess mints again on branch B (the next token) and records it on the same draft
    const tessAgain = await h().write(voter3, "PodManager", "mintPodWithCORE", [voter3.address, research.tokenId]);
    const remint = await tess.post(`${BASE}/me/pods/${tessPod}/mint`, { podId: tessPod, txHash: tessAgain.transactionHash });
    expect(remint.status).toBe(200);
    expect((await json(await tess.get(`${BASE}/me/pods/${tessPod}`))).data.pod.tokenId).toBe(Number(tokenN + 1n));
    await h().caughtUp();
    expect((await pass()).undone).toEqual([]);
  });
});

describe("a re-mined identical transaction (anvil_reorg)", () => {
  it("is reconfirmed when its facts hold, and undone when they changed (another token id)", async () => {
    const p = h().devnet.protocol;
    const feeRaw = await signed(curatorA, "SubnetManager", "setAccessFeeCORE", [research.tokenId, CORE(12)]);
    const voteRaw = await signed(voter2, "PodManager", "vote", [backed.tokenId, CORE(4), true]);
    const boostRaw = await signed(buyer, "SubnetManager", "boost", [research.tokenId, CORE(2)]);
    const mintRaw = await signed(voter3, "PodManager", "mintPodWithCORE", [voter3.address, research.tokenId]);
    const receipts = { fee: await sendRaw(feeRaw), vote: await sendRaw(voteRaw), boost: await sendRaw(boostRaw), mint: await sendRaw(mintRaw) };
    const epoch = await p.currentEpoch();
    const tokenId = (await p.read<bigint>("PodManager", "nextPodId")) - 1n;
    const tessPod = await podDraft(tess, research, "Tess's re-mined pod");
    expect((await setFee(alice, research, 12, receipts.fee.transactionHash)).status).toBe(200);
    expect((await reportVote(vic, backed, epoch, 4, receipts.vote.transactionHash)).status).toBe(200);
    expect((await reportBoost(bea, research, "2", receipts.boost.transactionHash)).status).toBe(201);
    const minted = await tess.post(`${BASE}/me/pods/${tessPod}/mint`, { podId: tessPod, txHash: receipts.mint.transactionHash });
    expect(await json(minted)).toEqual({ data: { success: true } });
    await h().caughtUp();
    expect((await pass()).undone).toEqual([]);

    // the last four blocks again: bob's mint first takes tess's token id; the four signed
    // transactions are mined again, identical, in other blocks
    const bobMintRaw = await signed(curatorB, "PodManager", "mintPodWithCORE", [curatorB.address, research.tokenId]);
    await anvilReorg(4, [
      [bobMintRaw, 0],
      [feeRaw, 1],
      [voteRaw, 2],
      [boostRaw, 3],
      [mintRaw, 3],
    ]);
    const moved = await Promise.all(Object.values(receipts).map((r) => p.publicClient.getTransactionReceipt({ hash: r.transactionHash })));
    for (const [index, receipt] of moved.entries()) {
      expect(receipt.status).toBe("success");
      expect(receipt.blockHash).not.toBe(Object.values(receipts)[index]!.blockHash);
    }

    const result = await pass();
    expect(result.reconfirmed.map((r) => [r.kind, r.txHash]).sort()).toEqual(
      [
        ["subnet-parameter", receipts.fee.transactionHash],
        ["vote", receipts.vote.transactionHash],
        ["boost", receipts.boost.transactionHash],
      ].sort(),
    );
    expect(result.undone).toEqual([
      expect.objectContaining({ kind: "pod-mint", txHash: receipts.mint.transactionHash, recordId: tessPod, reason: "changed" }),
    ]);
    // the rows now name the blocks the transactions are in
    const rows = await h().store.db
      .select()
      .from(verifiedTransactions)
      .where(inArray(verifiedTransactions.txHash, [receipts.fee, receipts.vote, receipts.boost].map((r) => r.transactionHash)));
    expect(new Set(rows.map((row) => row.blockHash))).toEqual(new Set(moved.slice(0, 3).map((r) => r.blockHash)));
    const kept = await h().store.db.select().from(reorgedRecords).where(eq(reorgedRecords.outcome, "reconfirmed"));
    expect(kept).toHaveLength(3);
    expect(kept.every((row) => row.newBlockHash !== null && row.newBlockHash !== row.blockHash)).toBe(true);

    // the facts stay visible: the fee of 12, and the re-mined vote backs feedback
    expect((await json(await get(`/public/subnets/${research.id}`))).data.subnet.accessFeeCORE).toBe(12);
    const power = await p.read<bigint>("VeCore", "votingPowerOf", [voter2.address]);
    expect((await feedbackOf(vic, backed, epoch, 4, power)).status).toBe(201);
    const [reported] = await h().store.db.select().from(votesReported).where(eq(votesReported.txHash, receipts.vote.transactionHash));
    const indexedVote = moved[1]!.logs.find((log) => log.address.toLowerCase() === p.address("PodManager").toLowerCase())!;
    expect(reported!.logIndex).toBe(indexedVote.logIndex);

    // the mint now made the next token: bob's token shows none of tess's metadata, and tess
    // records the same hash again, now for the token it mints on the canonical chain
    expect((await get(`/public/pods/${tokenId}`)).status).toBe(404);
    const again = await tess.post(`${BASE}/me/pods/${tessPod}/mint`, { podId: tessPod, txHash: receipts.mint.transactionHash });
    expect(again.status).toBe(200);
    expect((await json(again)).data).toEqual({ success: true });
    expect((await json(await tess.get(`${BASE}/me/pods/${tessPod}`))).data.pod.tokenId).toBe(Number(tokenId + 1n));
    await h().caughtUp();
    expect((await get(`/public/pods/${tokenId + 1n}`)).status).toBe(200);
  });
});

describe("a reorg while the service is down", () => {
  it("is acted on by the first pass of a new reconciler on the same database", async () => {
    // It once timed out at 60 s on CI (it takes ~1 s): the step it was in is printed when it fails.
    let step = "starting the first process";
    const startedAt = Date.now();
    const at = (next: string) => {
      step = `${next} (${Date.now() - startedAt} ms in)`;
    };
    onTestFailed(() => console.error(`reorg-kinds: failed while ${step}`));
    const p = h().devnet.protocol;
    const logger = createLogger("silent");
    // the first process: its app records, its reconciler ties the rows to their blocks
    const first = createDb(h().database.url, { chainSchemaName: "chain", maxConnections: 4 });
    const app1 = createPlatformApp({ ...h().deps, db: first.db, pool: first.pool });
    const post = (app: typeof app1, session: Session, path: string, body: unknown) =>
      app.request(`${BASE}${path}`, {
        method: "POST",
        headers: { Cookie: session.cookie, "Content-Type": "application/json" },
        body: JSON.stringify(body),
      });
    const reconciler1 = createReorgReconciler({
      db: first.db,
      client: batchClient(),
      logger,
      verifiers: createRecordVerifiers(first.db, h().runtime),
      intervalMs: 100,
    });
    reconciler1.start();
    at("sending the fee setter and the boost");
    const feeRaw = await signed(curatorA, "SubnetManager", "setAccessFeeCORE", [research.tokenId, CORE(13)]);
    const fee = await sendRaw(feeRaw);
    const boost = await h().write(buyer, "SubnetManager", "boost", [research.tokenId, CORE(3)]);
    const recordFee = { subnetId: research.id, accessFeeCORE: 13, txHash: fee.transactionHash };
    expect((await post(app1, alice, `/me/subnets/${research.id}/access-fee/core`, recordFee)).status).toBe(200);
    expect((await post(app1, bea, "/stakes/boost", { amount: "3", subnetId: research.id, txHash: boost.transactionHash })).status).toBe(201);
    const hashes = [fee.transactionHash, boost.transactionHash];
    at("waiting for the first reconciler to tie the records to their blocks");
    await eventually(async () => {
      const rows = await first.db.select().from(verifiedTransactions).where(inArray(verifiedTransactions.txHash, hashes));
      return rows.length === 2 && rows.every((row) => row.blockHash !== null);
    });
    at("stopping the first reconciler");
    await reconciler1.stop();
    at("ending the first pool");
    await first.pool.end();
    at("reorging anvil");

    // while it is down: the fee setter is mined again in another block, the boost is dropped
    await anvilReorg(2, [[feeRaw, 1]]);
    expect((await p.publicClient.getTransactionReceipt({ hash: fee.transactionHash })).blockHash).not.toBe(fee.blockHash);

    // a new process on the same database
    const before = reconcilerStats();
    const restarted = createDb(h().database.url, { chainSchemaName: "chain", maxConnections: 4 });
    const app2 = createPlatformApp({ ...h().deps, db: restarted.db, pool: restarted.pool });
    const reconciler2 = createReorgReconciler({
      db: restarted.db,
      client: batchClient(),
      logger,
      verifiers: createRecordVerifiers(restarted.db, h().runtime),
      intervalMs: 100,
    });
    try {
      reconciler2.start();
      at("waiting for the second reconciler's pass");
      await eventually(async () => (await restarted.db.select().from(reorgedRecords).where(inArray(reorgedRecords.txHash, hashes))).length === 2);
      const records = await restarted.db.select().from(reorgedRecords).where(inArray(reorgedRecords.txHash, hashes));
      expect(records.map((r) => [r.kind, r.outcome, r.reason]).sort()).toEqual(
        [
          ["boost", "undone", "dropped"],
          ["subnet-parameter", "reconfirmed", "re-mined"],
        ].sort(),
      );
      const after = reconcilerStats();
      expect(after.undone - before.undone).toBe(1);
      expect(after.reconfirmed - before.reconfirmed).toBe(1);
      expect(after.byKind.boost!.undone - (before.byKind.boost?.undone ?? 0)).toBe(1);
      expect(after.byKind["subnet-parameter"]!.reconfirmed - (before.byKind["subnet-parameter"]?.reconfirmed ?? 0)).toBe(1);

      at("checking the metrics and the new app");
      // an operator's Prometheus scrape shows the same counts
      observeReorgReconciler(reconcilerStats);
      const scraped = await (await app2.request("/metrics")).text();
      const series = (outcome: string, kind: string) =>
        Number(new RegExp(`^datamarket_reorg_records_total\\{outcome="${outcome}",kind="${kind}"\\} (\\d+)$`, "m").exec(scraped)?.[1]);
      expect(series("undone", "boost")).toBe(after.byKind.boost!.undone);
      expect(series("reconfirmed", "subnet-parameter")).toBe(after.byKind["subnet-parameter"]!.reconfirmed);
      expect(scraped).toMatch(/^datamarket_reorg_reconciler_passes_total\{result="ok"\} [1-9]\d*$/m);

      // the new app shows the canonical facts, and the buyer records their boost again
      const shown = await json(await app2.request(`${BASE}/public/subnets/${research.id}`));
      expect(shown.data.subnet.accessFeeCORE).toBe(13);
      expect(await restarted.db.select().from(boostsReported).where(eq(boostsReported.txHash, boost.transactionHash.toLowerCase()))).toEqual([]);
      const reboost = await h().write(buyer, "SubnetManager", "boost", [research.tokenId, CORE(3)]);
      expect((await post(app2, bea, "/stakes/boost", { amount: "3", subnetId: research.id, txHash: reboost.transactionHash })).status).toBe(201);
    } finally {
      await reconciler2.stop();
      await restarted.pool.end();
    }
  });
});
