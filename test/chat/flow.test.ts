/**
 * The chat server's whole flow against anvil and the indexer: sign in, mint from a (fake)
 * post, the pod in GET /pods and for the Platform API, votes over epochs, emissions checked
 * against the chain's own view, claims (one transaction per epoch), concurrent claims, the
 * 50-epoch window, and every mint and claim error.
 */
import { eq } from "drizzle-orm";
import { parseEther, parseEventLogs, type Hash } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PodManagerAbi } from "../../abis";
import { podDrafts, subnetDrafts, users, verifiedTransactions } from "../../api/db/offchain";
import { loadConfig } from "../../api/config";
import { createLogger } from "../../api/http/logger";
import { createMemoryRateLimiter } from "../../api/http/rate-limit";
import { createPlatformApp } from "../../api/platform/app";
import { toTokenString } from "../../chain/units";
import { roleAccount, type Role } from "../../devnet/accounts";
import type { Indexer } from "../../ops/indexer";
import { startDevnet, type Devnet } from "../support/chain";
import { useFreshDatabase, type FreshDatabase } from "../support/database";
import { getJson, postJson, protocolOf, signIn, startChatApp, startFakePostSource, type ChatTestServer, type FakePost } from "./support";
import { startChatIndexer } from "./support-indexer";

const CORE = (n: number) => parseEther(String(n));
const EXPLORER = "http://127.0.0.1:4000/explorer";
const statusUrl = (id: string, handle = "alice") => `https://x.com/${handle}/status/${id}`;

const posts = new Map<string, FakePost>([
  ["1001", { text: "New preprint: sparse attention cuts the cost of machine learning inference on long research papers by 40%. Code and data are public." }],
  ["1002", { text: "We released an open dataset of 2 million labelled street images for anyone to download and reuse." }],
  ["1003", { text: "Claim your free airdrop now, connect your wallet before it ends" }],
  ["1004", { text: "https://t.co/abc https://t.co/def" }],
  ["1005", { text: "Machine learning research: a survey of evaluation benchmarks for language models, with a replication study." }],
  ["1006", { text: "Research note: replication results for three classic machine learning papers, all data attached." }],
  ["1007", { text: "A research thread on training data quality for machine learning, with examples and counter-examples." }],
  ["1008", { text: "Another research paper on machine learning robustness, with a benchmark and an open leaderboard." }],
  ["1009", { text: "A long-running research diary on machine learning datasets, updated every epoch with new findings." }],
  ["1010", { text: "Follow for follow, let's grow together friends" }],
  ["1011", { text: "Research replication: two machine learning papers re-run with public data and scripts." }],
  ["1012", { text: "Research benchmark update: machine learning models compared on open evaluation data." }],
  ["1013", { text: "Research digest: three machine learning preprints worth reading this week, with notes." }],
  ["1014", { text: "Research question of the week: how should machine learning datasets document consent?" }],
]);

let devnet: Devnet;
let database: FreshDatabase;
let indexer: Indexer;
let chat: ChatTestServer;
let postSource: Awaited<ReturnType<typeof startFakePostSource>>;
let platformApp: ReturnType<typeof createPlatformApp>;

const user = privateKeyToAccount(generatePrivateKey());
const user2 = privateKeyToAccount(generatePrivateKey());
let token: string;
let token2: string;
const serverWallet = roleAccount("serverWallet").address;

const p = () => devnet.protocol;
async function caughtUp() {
  await indexer.waitForBlock(await p().publicClient.getBlockNumber({ cacheTime: 0 }), 90_000);
}
const vote = (voter: Role, podId: bigint, votes: number, up = true) => p().write(roleAccount(voter), "PodManager", "vote", [podId, CORE(votes), up]);
const serverNonce = () => p().publicClient.getTransactionCount({ address: serverWallet });
const podDraftCount = async () => (await chat.store.db.select({ id: podDrafts.id }).from(podDrafts)).length;

interface MintBody {
  success: boolean;
  txHash: Hash;
  podId: string | null;
  title: string;
  description: string;
  explorerUrl: string;
  subnetId: string;
  category: string;
}
interface EmissionsBody {
  podId: number;
  currentEpoch: number;
  totalClaimable: string;
  epochs: { epoch: number; amount: string; claimed: boolean; amountPrimaryToken?: string }[];
  moreEpochsAvailable: boolean;
  totalClaimablePrimaryToken?: string;
}
interface ClaimBody {
  podId: number;
  claimed: boolean;
  totalClaimed: string;
  txHashes: Hash[];
  moreEpochsAvailable: boolean;
  totalClaimedPrimaryToken?: string;
}

async function mint(body: Record<string, unknown>, bearer = token) {
  const response = await postJson(chat.app, "/pods/mint", body, bearer);
  return { status: response.status, body: (await response.json()) as MintBody & { error?: string } };
}
async function emissions(podId: bigint | string, query = "", bearer = token) {
  const response = await getJson(chat.app, `/pods/${podId}/emissions${query}`, bearer);
  return { status: response.status, body: (await response.json()) as EmissionsBody & { error?: string } };
}
async function claim(podId: bigint | string, query = "", bearer = token) {
  const response = await postJson(chat.app, `/pods/${podId}/emissions/claim${query}`, {}, bearer);
  return { status: response.status, body: (await response.json()) as ClaimBody & { error?: string } };
}

/** The chain's own view of what the owner's claim for `epoch` pays. */
async function chainClaimable(podId: bigint, epoch: number) {
  const [core, primary] = await p().read<[bigint, bigint]>("PodManager", "podOwnerClaimable", [podId, BigInt(epoch)]);
  return { core, primary };
}

async function mintFor(id: string, bearer: string, extra: Record<string, unknown> = {}): Promise<bigint> {
  const { status, body } = await mint({ tweetUrl: statusUrl(id), subnetHint: "1", ...extra }, bearer);
  expect(status, JSON.stringify(body)).toBe(200);
  return BigInt(body.podId!);
}

beforeAll(async () => {
  [devnet, database] = await Promise.all([startDevnet({ seed: true }), useFreshDatabase()]);
  postSource = await startFakePostSource(posts);
  chat = await startChatApp({
    database,
    protocol: protocolOf(devnet.deployment, devnet.chain.rpcUrl),
    env: { CHAT_OEMBED_URL: `${postSource.url}/oembed`, CHAT_EXPLORER_URL: EXPLORER },
  });
  // Names for the seeded datanets, as the Platform API's datanet drafts would hold them.
  const [owner] = await chat.store.db.insert(users).values({ idpSubject: "curator-a", walletAddress: roleAccount("curatorA").address.toLowerCase() }).returning();
  const draft = (tokenId: number, subnetName: string, subnetDescription: string) => ({
    ownerUserId: owner!.id,
    subnetCreatorType: "individual",
    subnetName,
    subnetDescription,
    onboardingPublishers: "Publish relevant content only.",
    onboardingVoters: "Vote on quality and relevance.",
    subnetGoal: "Curate",
    nativeTokenAddress: devnet.deployment.contracts.DemoToken.address,
    nativeTokenSymbol: "DATA",
    nativeTokenDecimals: 18,
    tokenId: String(tokenId),
  });
  await chat.store.db.insert(subnetDrafts).values([
    draft(1, "Research Papers", "Machine learning research papers, preprints, surveys and replication studies."),
    draft(2, "Open Datasets", "Open datasets: labelled images, tables and corpora released for anyone to download and reuse."),
  ]);
  platformApp = createPlatformApp({
    config: loadConfig({ DATABASE_URL: database.url, LOG_LEVEL: "silent" }),
    pool: chat.store.pool,
    db: chat.store.db,
    logger: createLogger("silent"),
    rateLimiter: createMemoryRateLimiter({ points: 100_000, windowSeconds: 60, keyPrefix: "platform-test" }),
  });
  indexer = await startChatIndexer(devnet.deployment, database.url, "chat_flow");
  await indexer.waitUntilReady(180_000);
  await caughtUp();
  // the seeded datanets were published on chain: their drafts name the indexed publish, as the publish route records it
  await chat.store.pool.query(
    "UPDATE offchain.subnet_drafts AS sd SET publish_tx_hash = d.publish_tx_hash FROM chain.datanet AS d WHERE d.id = sd.token_id",
  );
  [token, token2] = await Promise.all([signIn(chat.app, user), signIn(chat.app, user2)]);
}, 300_000);

afterAll(async () => {
  await indexer?.stop();
  await chat?.close();
  await postSource?.close();
  await devnet?.chain.stop();
  await database?.drop();
});

describe("chat server whole flow", () => {
  let podA: bigint;
  let mintTx: Hash;
  let claimedTotal: string;

  it("mints a pod from a post for the caller, sent by the server wallet", async () => {
    const epoch = await p().currentEpoch();
    const { status, body } = await mint({ tweetUrl: statusUrl("1001"), subnetHint: "Research Papers" });
    expect(status).toBe(200);
    expect(body.success).toBe(true);
    expect(body.podId).toMatch(/^\d+$/);
    expect(body.title).toBe("New preprint: sparse attention cuts the cost of machine learning inference on…");
    expect(body.title.length).toBeLessThanOrEqual(80);
    expect(body.description.length).toBeGreaterThanOrEqual(10);
    expect(body.description.length).toBeLessThanOrEqual(200);
    expect(body.explorerUrl).toBe(`${EXPLORER}/tx/${body.txHash}`);
    expect(body.subnetId).toBe("1");
    podA = BigInt(body.podId!);
    mintTx = body.txHash;

    expect((await p().read<string>("PodManager", "ownerOf", [podA])).toLowerCase()).toBe(user.address.toLowerCase());
    const receipt = await p().publicClient.getTransactionReceipt({ hash: mintTx });
    expect(receipt.from.toLowerCase()).toBe(serverWallet.toLowerCase());
    const [minted] = parseEventLogs({ abi: PodManagerAbi, eventName: "PodMinted", logs: receipt.logs });
    expect(minted!.args).toMatchObject({ podId: podA, owner: user.address, subnetId: 1n, payer: serverWallet, mintEpoch: BigInt(epoch) });
  });

  it("lists the pod in GET /pods from indexed state", async () => {
    await caughtUp();
    const response = await getJson(chat.app, "/pods", token);
    expect(response.status).toBe(200);
    const body = (await response.json()) as { pods: Record<string, unknown>[]; count: number };
    expect(body.count).toBe(1);
    expect(body.pods).toEqual([
      { podId: Number(podA), subnetId: "1", mintTxHash: mintTx, createdAt: expect.any(String), totalEmissions: 0, explorerUrl: `${EXPLORER}/tx/${mintTx}` },
    ]);
    const block = await p().publicClient.getBlock({ blockNumber: (await p().publicClient.getTransactionReceipt({ hash: mintTx })).blockNumber });
    expect(body.pods[0]!.createdAt).toBe(new Date(Number(block.timestamp) * 1000).toISOString());
    const other = (await (await getJson(chat.app, "/pods", token2)).json()) as { count: number };
    expect(other.count).toBe(0);
  });

  it("records the pod for the Platform API's pod routes with its name, description and URL", async () => {
    const [draft] = await chat.store.db.select().from(podDrafts).where(eq(podDrafts.mintTxHash, mintTx.toLowerCase()));
    const [subnet] = await chat.store.db.select().from(subnetDrafts).where(eq(subnetDrafts.tokenId, "1"));
    expect(draft).toMatchObject({
      source: "chat",
      walletAddress: user.address.toLowerCase(),
      tokenId: podA.toString(),
      subnetId: subnet!.id,
      podName: "New preprint: sparse attention cuts the cost of machine learning inference on…",
      url: statusUrl("1001"),
      platform: "x",
      category: "AI",
      slopCheckSkipped: false,
    });
    const [verified] = await chat.store.db.select().from(verifiedTransactions).where(eq(verifiedTransactions.txHash, mintTx.toLowerCase()));
    expect(verified).toMatchObject({ kind: "pod-mint", recordId: draft!.id });

    const response = await platformApp.request(`/api/v1/public/pods/${podA}`);
    expect(response.status).toBe(200);
    const { data } = (await response.json()) as { data: { pod: Record<string, unknown> } };
    expect(data.pod).toMatchObject({
      tokenId: Number(podA),
      name: draft!.podName,
      description: draft!.podDescription,
      url: statusUrl("1001"),
      privateSubnetId: subnet!.id,
    });
  });

  it("checks emissions over the voted epochs exactly as the chain's claimable view", async () => {
    const mintEpoch = await p().currentEpoch();
    await vote("voter1", podA, 100);
    await vote("voter2", podA, 40);
    await p().advanceToNextEpoch();
    await vote("voter3", podA, 30);
    await vote("voter2", podA, 10, false);
    await p().advanceToNextEpoch();
    await vote("voter1", podA, 20);
    const current = await p().advanceToNextEpoch();
    await caughtUp();

    const { status, body } = await emissions(podA);
    expect(status).toBe(200);
    expect(body.podId).toBe(Number(podA));
    expect(body.currentEpoch).toBe(current);
    expect(body.epochs.map((e) => e.epoch)).toEqual([mintEpoch, mintEpoch + 1, mintEpoch + 2]);
    let total = 0n;
    for (const entry of body.epochs) {
      const due = await chainClaimable(podA, entry.epoch);
      expect(due.core).toBeGreaterThan(0n);
      expect(entry).toEqual({ epoch: entry.epoch, amount: toTokenString(due.core), claimed: false, amountPrimaryToken: toTokenString(due.primary) });
      total += due.core;
    }
    expect(body.totalClaimable).toBe(toTokenString(total));
    expect(body.moreEpochsAvailable).toBe(false);
  });

  it("claims with one transaction per epoch paying the owner, then a second claim is 400", async () => {
    const before = await emissions(podA);
    const balanceBefore = await p().read<bigint>("CoreToken", "balanceOf", [user.address]);
    const { status, body } = await claim(podA);
    expect(status).toBe(200);
    expect(body.claimed).toBe(true);
    expect(body.txHashes).toHaveLength(before.body.epochs.length);
    expect(body.totalClaimed).toBe(before.body.totalClaimable);
    expect(body.totalClaimedPrimaryToken).toBe(before.body.totalClaimablePrimaryToken);
    expect(body.moreEpochsAvailable).toBe(false);

    const claimedEpochs: bigint[] = [];
    for (const hash of body.txHashes) {
      const receipt = await p().publicClient.getTransactionReceipt({ hash });
      expect(receipt.status).toBe("success");
      const events = parseEventLogs({ abi: PodManagerAbi, eventName: "PodOwnerEmissionsClaimed", logs: receipt.logs });
      expect(events).toHaveLength(1);
      expect(events[0]!.args).toMatchObject({ podId: podA, owner: user.address, sender: serverWallet });
      claimedEpochs.push(events[0]!.args.epoch);
    }
    expect(claimedEpochs.map(Number)).toEqual(before.body.epochs.map((e) => e.epoch));
    const balanceAfter = await p().read<bigint>("CoreToken", "balanceOf", [user.address]);
    expect(toTokenString(balanceAfter - balanceBefore)).toBe(body.totalClaimed);
    claimedTotal = body.totalClaimed;

    const nonce = await serverNonce();
    expect(await claim(podA)).toEqual({ status: 400, body: { error: "Nothing to claim" } });
    expect(await serverNonce()).toBe(nonce);

    await caughtUp();
    const after = await emissions(podA);
    expect(after.body.totalClaimable).toBe("0");
    expect(after.body.epochs.map((e) => [e.epoch, e.amount, e.claimed])).toEqual(
      before.body.epochs.map((e) => [e.epoch, e.amount, true]),
    );
  });

  it("reports the owner's paid emissions as totalEmissions in GET /pods", async () => {
    await caughtUp();
    const body = (await (await getJson(chat.app, "/pods", token)).json()) as { pods: { podId: number; totalEmissions: number }[] };
    expect(body.pods.find((pod) => pod.podId === Number(podA))!.totalEmissions).toBe(Number(claimedTotal));
  });

  it("lets only the owner claim (403), answers 404 for tokens not on chain and 400 for invalid ids", async () => {
    expect(await claim(podA, "", token2)).toEqual({ status: 403, body: { error: "Only the pod's owner may claim its emissions" } });
    expect(await emissions(999_999n)).toEqual({ status: 404, body: { error: "Pod not found" } });
    expect(await claim(999_999n)).toEqual({ status: 404, body: { error: "Pod not found" } });
    expect((await emissions(0n)).status).toBe(404);
    for (const bad of ["abc", "-1", "1.5", "1e3", `${"9".repeat(79)}`, (2n ** 256n).toString()]) {
      expect(await emissions(bad)).toEqual({ status: 400, body: { error: "Invalid podId" } });
      expect(await claim(bad)).toEqual({ status: 400, body: { error: "Invalid podId" } });
    }
    for (const bad of ["0", "-2", "x", "1.5"]) {
      const response = await emissions(podA, `?fromEpoch=${bad}`);
      expect(response.status).toBe(400);
      expect(response.body.error).toMatch(/fromEpoch/);
    }
  });

  it("never sends one epoch twice when claims for one pod run concurrently", async () => {
    const podB = await mintFor("1005", token2);
    await vote("voter1", podB, 10);
    await p().advanceToNextEpoch();
    await vote("voter2", podB, 10);
    await vote("voter3", podB, 5);
    await p().advanceToNextEpoch();
    await caughtUp();
    const due = (await emissions(podB, "", token2)).body;
    expect(due.epochs.filter((e) => !e.claimed)).toHaveLength(2);

    const results = await Promise.all([1, 2, 3, 4].map(() => claim(podB, "", token2)));
    const ok = results.filter((r) => r.status === 200);
    expect(ok).toHaveLength(1);
    expect(ok[0]!.body.txHashes).toHaveLength(2);
    expect(ok[0]!.body.totalClaimed).toBe(due.totalClaimable);
    for (const r of results.filter((r) => r.status !== 200)) expect(r).toEqual({ status: 400, body: { error: "Nothing to claim" } });

    const logs = await p().publicClient.getContractEvents({
      address: devnet.deployment.contracts.PodManager.address,
      abi: PodManagerAbi,
      eventName: "PodOwnerEmissionsClaimed",
      args: { podId: podB },
      fromBlock: 0n,
    });
    expect(logs.map((l) => Number(l.args.epoch)).sort()).toEqual(due.epochs.map((e) => e.epoch).sort());
  });

  it("claims for different pods in parallel without nonce collisions", async () => {
    const [podD, podE] = [await mintFor("1006", token), await mintFor("1007", token2)];
    await vote("voter1", podD, 10);
    await vote("voter2", podE, 10);
    await p().advanceToNextEpoch();
    await caughtUp();
    const [d, e] = await Promise.all([claim(podD, "", token), claim(podE, "", token2)]);
    expect(d.status).toBe(200);
    expect(e.status).toBe(200);
    expect(d.body.txHashes).toHaveLength(1);
    expect(e.body.txHashes).toHaveLength(1);
  });

  it("scans at most 50 epochs per call and continues by itself (no cursor)", async () => {
    // keep the pod valid long enough and the research pools funded for 53 epochs of claims
    await p().write(roleAccount("deployer"), "PodManager", "setPodValidityPeriod", [80n]);
    await p().write(roleAccount("curatorA"), "SubnetManager", "seedEmissionPool", [1n, CORE(40_000), CORE(20_000)]);
    const podC = await mintFor("1008", token);
    const first = await p().currentEpoch();
    const epochs = 53;
    for (let i = 0; i < epochs; i++) {
      await vote("voter1", podC, 1);
      await p().advanceToNextEpoch();
    }
    await caughtUp();

    const check = await emissions(podC);
    expect(check.status).toBe(200);
    expect(check.body.epochs).toHaveLength(50);
    expect(check.body.epochs[0]!.epoch).toBe(first);
    expect(check.body.epochs.at(-1)!.epoch).toBe(first + 49);
    expect(check.body.moreEpochsAvailable).toBe(true);
    for (const entry of [check.body.epochs[0]!, check.body.epochs[49]!]) {
      expect(entry.amount).toBe(toTokenString((await chainClaimable(podC, entry.epoch)).core));
    }

    const fromLater = await emissions(podC, `?fromEpoch=${first + 50}`);
    expect(fromLater.body.epochs.map((e) => e.epoch)).toEqual([first + 50, first + 51, first + 52]);
    expect(fromLater.body.moreEpochsAvailable).toBe(false);

    const firstClaim = await claim(podC);
    expect(firstClaim.status).toBe(200);
    expect(firstClaim.body.txHashes).toHaveLength(50);
    expect(firstClaim.body.totalClaimed).toBe(check.body.totalClaimable);
    expect(firstClaim.body.moreEpochsAvailable).toBe(true);

    // the indexer may not have seen those claims yet: the chain's view keeps the scan exact
    const secondCheck = await emissions(podC);
    expect(secondCheck.body.epochs.filter((e) => !e.claimed).map((e) => e.epoch)).toEqual([first + 50, first + 51, first + 52]);
    const secondClaim = await claim(podC);
    expect(secondClaim.status).toBe(200);
    expect(secondClaim.body.txHashes).toHaveLength(3);
    expect(secondClaim.body.totalClaimed).toBe(secondCheck.body.totalClaimable);
    expect(secondClaim.body.moreEpochsAvailable).toBe(false);
    expect(await claim(podC)).toEqual({ status: 400, body: { error: "Nothing to claim" } });
  }, 240_000);
});

describe("two replicas sharing the database and the server wallet", () => {
  let replica: ChatTestServer;
  beforeAll(async () => {
    replica = await startChatApp({
      database,
      protocol: protocolOf(devnet.deployment, devnet.chain.rpcUrl),
      env: { CHAT_OEMBED_URL: `${postSource.url}/oembed`, CHAT_EXPLORER_URL: EXPLORER },
    });
  });
  afterAll(async () => {
    await replica?.close();
  });

  it("mint in parallel without nonce collisions", async () => {
    const [a, b] = await Promise.all([
      postJson(chat.app, "/pods/mint", { tweetUrl: statusUrl("1011"), subnetHint: "1" }, token),
      postJson(replica.app, "/pods/mint", { tweetUrl: statusUrl("1012"), subnetHint: "1" }, token2),
    ]);
    expect([a.status, b.status]).toEqual([200, 200]);
    const [bodyA, bodyB] = (await Promise.all([a.json(), b.json()])) as MintBody[];
    expect(bodyA!.podId).not.toBe(bodyB!.podId);
  });

  it("serialise claims of one pod across replicas (advisory lock)", async () => {
    const podF = await mintFor("1013", token);
    await vote("voter1", podF, 5);
    await p().advanceToNextEpoch();
    await vote("voter2", podF, 5);
    await p().advanceToNextEpoch();
    await caughtUp();
    const results = await Promise.all([
      postJson(chat.app, `/pods/${podF}/emissions/claim`, {}, token),
      postJson(replica.app, `/pods/${podF}/emissions/claim`, {}, token),
    ]);
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 400]);
    const ok = (await results.find((r) => r.status === 200)!.json()) as ClaimBody;
    expect(ok.txHashes).toHaveLength(2);
  });
});

describe("a mint whose receipt is late", () => {
  it("answers podId null, and the pod's token id is filled in once it is indexed", async () => {
    const slow = await startChatApp({
      database,
      protocol: protocolOf(devnet.deployment, devnet.chain.rpcUrl),
      env: { CHAT_OEMBED_URL: `${postSource.url}/oembed`, CHAT_EXPLORER_URL: EXPLORER, CHAT_MINT_RECEIPT_TIMEOUT_MS: "700" },
    });
    try {
      await p().testClient.setAutomine(false);
      let body: MintBody;
      try {
        const response = await postJson(slow.app, "/pods/mint", { tweetUrl: statusUrl("1014"), subnetHint: "1" }, token2);
        expect(response.status).toBe(200);
        body = (await response.json()) as MintBody;
      } finally {
        await p().testClient.setAutomine(true);
        await p().testClient.mine({ blocks: 1 });
      }
      expect(body.success).toBe(true);
      expect(body.podId).toBeNull();
      const [before] = await chat.store.db.select().from(podDrafts).where(eq(podDrafts.mintTxHash, body.txHash.toLowerCase()));
      expect(before!.tokenId).toBeNull();

      await caughtUp();
      const list = (await (await getJson(slow.app, "/pods", token2)).json()) as { pods: { podId: number; mintTxHash: string }[] };
      const listed = list.pods.find((pod) => pod.mintTxHash === body.txHash);
      expect(listed).toBeDefined();
      // GET /pods fills the token id in after it answered
      await expect
        .poll(
          async () => (await chat.store.db.select().from(podDrafts).where(eq(podDrafts.mintTxHash, body.txHash.toLowerCase())))[0]!.tokenId,
          { timeout: 30_000 },
        )
        .toBe(String(listed!.podId));
    } finally {
      await slow.close();
    }
  });
});

describe("mint errors", () => {
  async function expectRejected(body: Record<string, unknown>, status: number, error: RegExp | string) {
    const nonce = await serverNonce();
    const drafts = await podDraftCount();
    const response = await mint(body);
    expect(response.status, JSON.stringify(response.body)).toBe(status);
    expect(Object.keys(response.body)).toEqual(["error"]);
    if (typeof error === "string") expect(response.body.error).toBe(error);
    else expect(response.body.error).toMatch(error);
    expect(await serverNonce()).toBe(nonce);
    expect(await podDraftCount()).toBe(drafts);
  }

  it.each([
    ["a missing tweetUrl", {}, /tweetUrl/],
    ["another site", { tweetUrl: "https://example.org/alice/status/1002" }, "Invalid tweetUrl: tweetUrl must be an x.com or twitter.com post URL"],
    ["a profile URL", { tweetUrl: "https://x.com/alice" }, /^Invalid tweetUrl: tweetUrl must point to a post/],
    ["a look-alike host", { tweetUrl: "https://x.com.evil.example/alice/status/1002" }, /^Invalid tweetUrl/],
    ["a non-http scheme", { tweetUrl: "javascript:alert(1)" }, /^Invalid tweetUrl/],
    ["a title over 80 characters", { tweetUrl: statusUrl("1002"), title: "t".repeat(81) }, /title/],
    ["a blank title", { tweetUrl: statusUrl("1002"), title: "   " }, /title/],
    ["a non-boolean skipSlopCheck", { tweetUrl: statusUrl("1002"), skipSlopCheck: "yes" }, /skipSlopCheck/],
    ["an unknown datanet name", { tweetUrl: statusUrl("1002"), subnetHint: "Cooking" }, "Unknown datanet: Cooking"],
    ["an unknown datanet id", { tweetUrl: statusUrl("1002"), subnetHint: "77" }, "Unknown datanet: 77"],
  ])("answers 400 for %s, sending nothing", async (_label, body, error) => {
    await expectRejected(body, 400, error);
  });

  it("answers 400 for a post the source does not have", async () => {
    await expectRejected({ tweetUrl: statusUrl("424242") }, 400, "Post not found or not public");
  });

  it.each([
    ["spam", "1003", /^Post failed the quality check: The post matches a known spam pattern/],
    ["a link-only post", "1004", "Post failed the quality check: The post is only links, mentions or hashtags"],
    ["a post already minted", "1001", "Post failed the quality check: This post has already been minted as a pod"],
  ])("answers 400 with the reason for %s", async (_label, id, error) => {
    await expectRejected({ tweetUrl: statusUrl(id, "someone") }, 400, error);
  });

  it("answers 502 when the post source fails, sending nothing", async () => {
    await expectRejected({ tweetUrl: statusUrl("5550005") }, 502, "Could not fetch the post");
  });

  it("mints a flagged post when skipSlopCheck is set and records that the check was skipped", async () => {
    const { status, body } = await mint({ tweetUrl: statusUrl("1010"), subnetHint: "2", skipSlopCheck: true, title: "x".repeat(80) });
    expect(status).toBe(200);
    expect(body.title).toBe("x".repeat(80));
    const [draft] = await chat.store.db.select().from(podDrafts).where(eq(podDrafts.mintTxHash, body.txHash.toLowerCase()));
    expect(draft).toMatchObject({ slopCheckSkipped: true, podName: "x".repeat(80), tokenId: body.podId });
  });

  it("picks the best-matching datanet when no hint is given", async () => {
    const { status, body } = await mint({ tweetUrl: statusUrl("1002") });
    expect(status).toBe(200);
    expect(body.subnetId).toBe("2");
    const research = await mint({ tweetUrl: statusUrl("1009") });
    expect(research.body.subnetId).toBe("1");
  });
});
