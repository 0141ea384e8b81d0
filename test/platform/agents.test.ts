/**
 * Agent routes (spec §4.5) through the real app, against anvil and the indexer: registration,
 * bearer auth and ownership, profile updates, public datanet summaries, datanets and pods created
 * with txHashes from the agent's own wallet, archive, and votes.
 */
import { createHash, randomUUID } from "node:crypto";
import { eq } from "drizzle-orm";
import { keccak256, parseEther, toHex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { beforeAll, describe, expect, it } from "vitest";
import { agents, votesReported } from "../../api/db/offchain";
import { roleAccount } from "../../devnet/accounts";
import { bindWallet, eventually, listed, makeVoter, mintedPod, publishDatanet, registerAgent, voteOnChain, type Agent, type Ref } from "./agents-harness";
import { BASE, json, podDraftBody, subnetDraftBody, usePlatformHarness, type Session } from "./harness";

const h = usePlatformHarness({ indexer: true });
const curatorA = roleAccount("curatorA");
const curatorB = roleAccount("curatorB");
const voter1 = roleAccount("voter1");

let owner: Session;
let publisher: Session;
let research: Ref;
let userPod: Ref;
let agent: Agent;
let rival: Agent;

const hash = keccak256(toHex("any"));

beforeAll(async () => {
  owner = await h().signIn("owner", curatorA, "Olivia");
  publisher = await h().signIn("publisher", curatorB, "Paul");
  for (const account of [curatorA, curatorB, voter1]) await h().fund(account);
  research = await publishDatanet(h(), owner, curatorA, "Research");
  userPod = await mintedPod(h(), publisher, curatorB, research);
  agent = await registerAgent(h(), { name: "Scout", description: "Finds datasets" }, { funded: true });
  rival = await registerAgent(h(), { name: "Rival", description: "Another agent" }, { funded: true });
  // bound to their own generated wallets by signature, so a transaction of any other sender is refused
  for (const bot of [agent, rival]) await bindWallet(h(), bot);
});

describe("POST /agents/register", () => {
  it("creates an agent with a credential under both names and, by default, a new wallet and its key (200)", async () => {
    const response = await h().request(`${BASE}/agents/register`, {
      body: {
        name: "Curator bot",
        description: "Votes on papers",
        thumbnailURL: "https://img.example/bot.png",
        isOrchestrator: true,
      },
    });
    expect(response.status).toBe(200);
    const { data } = await json(response);
    expect(data).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      apiKey: expect.stringMatching(/^agt_[A-Za-z0-9_-]{43}$/),
      accessToken: data.apiKey,
      walletAddress: expect.stringMatching(/^0x[0-9a-f]{40}$/),
      privateKey: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      isOrchestrator: true,
      isOrquestra: true,
      name: "Curator bot",
      description: "Votes on papers",
      thumbnailURL: "https://img.example/bot.png",
    });
    expect(privateKeyToAccount(data.privateKey).address.toLowerCase()).toBe(data.walletAddress);
    // stored: the credential's sha-256 only, never the credential or the private key
    const [row] = await h().store.db.select().from(agents).where(eq(agents.id, data.id));
    expect(row!.credentialHash).toBe(createHash("sha256").update(data.apiKey).digest("hex"));
    expect(row).toMatchObject({ ownWalletAddress: data.walletAddress, walletAddress: null });
    const stored = JSON.stringify(row);
    expect(stored).not.toContain(data.apiKey);
    expect(stored).not.toContain(data.privateKey.slice(2));
  });

  it("with createWallet: false, creates an agent with no wallet and no key", async () => {
    const response = await h().request(`${BASE}/agents/register`, {
      body: { name: "Walletless", description: "Binds later", createWallet: false },
    });
    expect(response.status).toBe(200);
    const { data } = await json(response);
    expect(data).toMatchObject({ walletAddress: null, name: "Walletless" });
    expect(data).not.toHaveProperty("privateKey");
    const [row] = await h().store.db.select().from(agents).where(eq(agents.id, data.id));
    expect(row).toMatchObject({ walletAddress: null, walletBoundAt: null, ownWalletAddress: null });
  });

  it("creates a new identity on every call, never refreshing one: new id, credential and wallet address (spec §4.5 rule 2)", async () => {
    const body = { name: "Twin", description: "Same body twice" };
    const register = async () => {
      const response = await h().request(`${BASE}/agents/register`, { body });
      expect(response.status).toBe(200);
      return (await json(response)).data;
    };
    const [a, b] = [await register(), await register()];
    expect(a.id).not.toBe(b.id);
    expect(a.apiKey).not.toBe(b.apiKey);
    expect(a.walletAddress).toMatch(/^0x[0-9a-f]{40}$/);
    expect(b.walletAddress).toMatch(/^0x[0-9a-f]{40}$/);
    expect(a.walletAddress).not.toBe(b.walletAddress);
    expect(a).toMatchObject({ isOrchestrator: false, thumbnailURL: null, description: "Same body twice" });
  });

  it("accepts a 100-character name and an empty description", async () => {
    const response = await h().request(`${BASE}/agents/register`, { body: { name: "n".repeat(100), description: "" } });
    expect(response.status).toBe(200);
  });

  it.each([
    ["name missing", { name: undefined }],
    ["name empty", { name: "" }],
    ["name blank", { name: "   " }],
    ["name over 100", { name: "n".repeat(101) }],
    ["description missing", { description: undefined }],
    ["description over 1000", { description: "d".repeat(1001) }],
    ["description not a string", { description: 7 }],
    ["thumbnailURL not a URL", { thumbnailURL: "pic" }],
    ["thumbnailURL with javascript:", { thumbnailURL: "javascript:alert(1)" }],
    ["isOrchestrator as a string", { isOrchestrator: "true" }],
    ["createWallet as a string", { createWallet: "yes" }],
  ])("answers 400 for %s", async (_name, override) => {
    const response = await h().request(`${BASE}/agents/register`, { body: { name: "Bot", description: "A bot", ...override } });
    expect(response.status).toBe(400);
    expect(Object.keys(await json(response))).toEqual(["error"]);
  });

  it("answers 400 for a body that is not JSON", async () => {
    const response = await h().request(`${BASE}/agents/register`, { body: "{", method: "POST" });
    expect(await json(response)).toEqual({ error: "Invalid JSON body" });
  });
});

describe("agent bearer auth", () => {
  const routes = () => [
    { method: "PATCH", path: `/agents/${agent.id}`, body: { name: "x" } },
    { method: "POST", path: `/agents/${agent.id}/wallet`, body: {} },
    { method: "POST", path: `/agents/${agent.id}/subnets`, body: {} },
    { method: "POST", path: `/agents/${agent.id}/pods`, body: {} },
    { method: "PATCH", path: `/agents/${agent.id}/pods/${userPod.id}/archive` },
    { method: "POST", path: `/agents/${agent.id}/pods/${userPod.id}/votes`, body: { txHash: hash } },
    { method: "POST", path: `/agents/${agent.id}/subnets/${research.id}/datasets/subscriptions/packages/monthly/orders`, body: { txHash: hash } },
    { method: "GET", path: `/agents/${agent.id}/subnets/${research.id}/datasets/subscriptions/packages/orders` },
    { method: "GET", path: `/agents/${agent.id}/subnets/${research.id}/datasets` },
  ];

  it("answers 401 Unauthorized on every agent route without a valid credential", async () => {
    const headers: Array<Record<string, string>> = [
      {},
      { Authorization: "Bearer" },
      { Authorization: "Bearer garbage" },
      { Authorization: `Basic ${agent.credential}` },
      { Authorization: `Bearer agt_${"A".repeat(43)}` },
      { Authorization: `Bearer ${agent.credential}x` },
    ];
    for (const route of routes()) {
      for (const header of headers) {
        const response = await h().request(`${BASE}${route.path}`, { method: route.method, body: route.body, headers: header });
        expect(response.status, `${route.method} ${route.path} ${JSON.stringify(header)}`).toBe(401);
        expect(await json(response)).toEqual({ error: "Unauthorized" });
      }
    }
  });

  it("answers 403 Forbidden when a valid credential acts on another agent's id", async () => {
    for (const route of routes()) {
      const response = await rival.request(`${BASE}${route.path}`, { method: route.method, body: route.body });
      expect(response.status, `${route.method} ${route.path}`).toBe(403);
      expect(await json(response)).toEqual({ error: "Forbidden" });
    }
  });
});

describe("PATCH /agents/{agentId}", () => {
  it("updates the given fields only and answers the id", async () => {
    const patch = await registerAgent(h(), { name: "Before", description: "Old", thumbnailURL: "https://img.example/a.png" });
    const response = await patch.request(`${BASE}/agents/${patch.id}`, { method: "PATCH", body: { name: "After", isOrchestrator: true } });
    expect(response.status).toBe(200);
    expect(await json(response)).toEqual({ data: { id: patch.id } });
    let [row] = await h().store.db.select().from(agents).where(eq(agents.id, patch.id));
    expect(row).toMatchObject({ name: "After", description: "Old", thumbnailUrl: "https://img.example/a.png", isOrchestrator: true });
    await patch.request(`${BASE}/agents/${patch.id}`, { method: "PATCH", body: { thumbnailURL: null, description: "New" } });
    [row] = await h().store.db.select().from(agents).where(eq(agents.id, patch.id));
    expect(row).toMatchObject({ name: "After", description: "New", thumbnailUrl: null });
  });

  it.each([
    ["an empty body", {}],
    ["name empty", { name: "" }],
    ["name over 100", { name: "n".repeat(101) }],
    ["description over 1000", { description: "d".repeat(1001) }],
    ["thumbnailURL invalid", { thumbnailURL: "nope" }],
    ["isOrchestrator not a boolean", { isOrchestrator: 1 }],
  ])("answers 400 for %s", async (_name, body) => {
    const response = await agent.request(`${BASE}/agents/${agent.id}`, { method: "PATCH", body });
    expect(response.status).toBe(400);
    expect(Object.keys(await json(response))).toEqual(["error"]);
  });
});

describe("agent datanets: POST /agents/{agentId}/subnets and GET /agents/subnets", () => {
  let created: { id: string; tokenId: bigint };

  it("records a datanet the agent's wallet published (201 with its id), listed once indexed", async () => {
    const p = h().devnet.protocol;
    const tokenId = await p.read<bigint>("SubnetManager", "nextSubnetId");
    const { transactionHash } = await h().write(agent.account, "SubnetManager", "publishSubnet", [p.address("DemoToken")]);
    const body = { ...subnetDraftBody({ subnetName: "Agent datanet" }, p.address("DemoToken")), txHash: transactionHash };
    const response = await agent.request(`${BASE}/agents/${agent.id}/subnets`, { body });
    expect(response.status).toBe(201);
    const { data } = await json(response);
    expect(data).toEqual({ subnetId: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    created = { id: data.subnetId, tokenId };
    // reused
    const again = await agent.request(`${BASE}/agents/${agent.id}/subnets`, { body });
    expect(again.status).toBe(400);
    expect(await json(again)).toEqual({ error: "Transaction already used" });

    // chain-only datanets and unpublished drafts are not listed
    await h().write(curatorA, "SubnetManager", "publishSubnet", [p.address("DemoToken")]);
    await owner.post(`${BASE}/me/subnets`, subnetDraftBody({ subnetName: "Unpublished" }));
    await h().caughtUp();
    await eventually(async () => (await json(await h().request(`${BASE}/agents/subnets`))).data.subnets.length === 2);
    const list = await h().request(`${BASE}/agents/subnets`);
    expect(list.status).toBe(200);
    expect(await json(list)).toEqual({
      data: {
        subnets: [
          { id: research.id, name: "Research", description: subnetDraftBody().subnetDescription, tokenId: String(research.tokenId) },
          { id: created.id, name: "Agent datanet", description: subnetDraftBody().subnetDescription, tokenId: String(tokenId) },
        ],
      },
    });
  });

  it.each([
    ["an unknown hash", async () => keccak256(toHex("nothing")), /not found/],
    [
      "a reverted transaction",
      async () => h().sendReverted(agent.account, "SubnetManager", "publishSubnet", ["0x0000000000000000000000000000000000000001"]),
      /reverted/,
    ],
    [
      "a user's publication",
      async () => (await h().write(curatorA, "SubnetManager", "publishSubnet", [h().devnet.protocol.address("DemoToken")])).transactionHash,
      /not sent by the caller/,
    ],
    [
      "a transaction of another kind",
      async () => (await h().write(agent.account, "SubnetManager", "boost", [research.tokenId, 1n])).transactionHash,
      /no SubnetPublished event/,
    ],
  ])("answers 400 for %s", async (_name, make, message) => {
    const p = h().devnet.protocol;
    const body = { ...subnetDraftBody({}, p.address("DemoToken")), txHash: await make() };
    const response = await agent.request(`${BASE}/agents/${agent.id}/subnets`, { body });
    expect(response.status).toBe(400);
    expect((await json(response)).error).toMatch(message);
  });

  it.each([
    ["txHash missing", { txHash: undefined }],
    ["subnetName over 100", { subnetName: "s".repeat(101) }],
    ["subnetDescription under 10", { subnetDescription: "short" }],
    ["subnetCreatorType unknown", { subnetCreatorType: "dao" }],
    ["nativeTokenDecimals 19", { nativeTokenDecimals: 19 }],
  ])("answers 400 for %s", async (_name, override) => {
    const response = await agent.request(`${BASE}/agents/${agent.id}/subnets`, { body: { ...subnetDraftBody(), txHash: hash, ...override } });
    expect(response.status).toBe(400);
  });
});

describe("agent pods: POST /agents/{agentId}/pods and PATCH .../archive", () => {
  let agentPod: { id: string; tokenId: bigint };

  async function mintAsAgent(who: Agent = agent) {
    const p = h().devnet.protocol;
    const tokenId = await p.read<bigint>("PodManager", "nextPodId");
    const { transactionHash } = await h().write(who.account, "PodManager", "mintPodWithCORE", [who.account.address, research.tokenId]);
    return { tokenId, txHash: transactionHash };
  }

  it("records a pod the agent's wallet minted (201 with its id), public with the agent as creator", async () => {
    const { tokenId, txHash } = await mintAsAgent();
    const response = await agent.request(`${BASE}/agents/${agent.id}/pods`, {
      body: { ...podDraftBody(research.id, { podName: "Agent pod" }), txHash },
    });
    expect(response.status).toBe(201);
    const { data } = await json(response);
    expect(data).toEqual({ podId: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    agentPod = { id: data.podId, tokenId };
    await listed(h(), agentPod);
    const pub = await json(await h().request(`${BASE}/public/pods/${agentPod.id}`));
    expect(pub.data.pod).toMatchObject({ tokenId: Number(tokenId), creator: { id: agent.id, username: "Scout" } });
  });

  it.each([
    ["a user's mint", async () => (await h().write(curatorB, "PodManager", "mintPodWithCORE", [curatorB.address, research.tokenId])).transactionHash, /not sent by the caller/],
    ["a transaction of another kind", async () => (await h().write(agent.account, "CoreToken", "approve", [curatorA.address, 1n])).transactionHash, /not a call to PodManager/],
    [
      "a reverted mint",
      async () => h().sendReverted(agent.account, "PodManager", "mintPodWithCORE", [agent.account.address, 999n]),
      /reverted/,
    ],
  ])("answers 400 for %s", async (_name, make, message) => {
    const body = { ...podDraftBody(research.id), txHash: await make() };
    const response = await agent.request(`${BASE}/agents/${agent.id}/pods`, { body });
    expect(response.status).toBe(400);
    expect((await json(response)).error).toMatch(message);
  });

  it("answers 400 for a reused transaction", async () => {
    const body = { ...podDraftBody(research.id), txHash: (await mintAsAgent()).txHash };
    expect((await agent.request(`${BASE}/agents/${agent.id}/pods`, { body })).status).toBe(201);
    const again = await agent.request(`${BASE}/agents/${agent.id}/pods`, { body });
    expect(again.status).toBe(400);
    expect(await json(again)).toEqual({ error: "Transaction already used" });
  });

  it.each([
    ["podName under 3", { podName: "ab" }],
    ["agreeToTerms false", { agreeToTerms: false }],
    ["txHash malformed", { txHash: "0x1" }],
  ])("answers 400 for %s", async (_name, override) => {
    const response = await agent.request(`${BASE}/agents/${agent.id}/pods`, { body: { ...podDraftBody(research.id), txHash: hash, ...override } });
    expect(response.status).toBe(400);
  });

  it("archives the agent's pod: hidden from public lists, idempotent, also by tokenId", async () => {
    const archive = (ref: string, who = agent) =>
      who.request(`${BASE}/agents/${who.id}/pods/${ref}/archive`, { method: "PATCH" });
    const response = await archive(agentPod.id);
    expect(response.status).toBe(200);
    expect(await json(response)).toEqual({ data: { podId: agentPod.id } });
    expect((await h().request(`${BASE}/public/pods/${agentPod.id}`)).status).toBe(404);
    const list = await json(await h().request(`${BASE}/public/pods?limit=100`));
    expect(list.data.pods.map((pod: { id: string }) => pod.id)).not.toContain(agentPod.id);
    expect(await json(await archive(String(agentPod.tokenId)))).toEqual({ data: { podId: agentPod.id } });
  });

  it("answers 404 for pods the agent did not create", async () => {
    const { txHash } = await mintAsAgent(rival);
    const rivalPod = (await json(await rival.request(`${BASE}/agents/${rival.id}/pods`, { body: { ...podDraftBody(research.id), txHash } }))).data.podId;
    for (const ref of [rivalPod, userPod.id, randomUUID(), "nope"]) {
      const response = await agent.request(`${BASE}/agents/${agent.id}/pods/${ref}/archive`, { method: "PATCH" });
      expect(response.status).toBe(404);
      expect(await json(response)).toEqual({ error: "Pod not found" });
    }
  });
});

describe("POST /agents/{agentId}/pods/{podId}/votes", () => {
  beforeAll(async () => {
    await makeVoter(h(), agent.account, [research]);
    await makeVoter(h(), voter1, [research]);
  });

  it("records the agent wallet's vote with the values of its event", async () => {
    const vote = await voteOnChain(h(), agent.account, userPod, parseEther("12.5"), false);
    const response = await agent.request(`${BASE}/agents/${agent.id}/pods/${userPod.id}/votes`, { body: { txHash: vote.hash } });
    expect(response.status).toBe(200);
    expect(await json(response)).toEqual({ data: { id: `${vote.hash}-${vote.logIndex}` } });
    const [row] = await h().store.db.select().from(votesReported).where(eq(votesReported.txHash, vote.hash));
    expect(row).toMatchObject({
      agentId: agent.id,
      userId: null,
      voter: agent.walletAddress,
      votes: parseEther("12.5").toString(),
      upVote: false,
      epoch: vote.epoch,
    });
    const again = await agent.request(`${BASE}/agents/${agent.id}/pods/${userPod.id}/votes`, { body: { txHash: vote.hash } });
    expect(await json(again)).toEqual({ error: "Transaction already used" });
  });

  it("takes the pod by tokenId", async () => {
    const vote = await voteOnChain(h(), agent.account, userPod, parseEther("1"));
    const response = await agent.request(`${BASE}/agents/${agent.id}/pods/${userPod.tokenId}/votes`, { body: { txHash: vote.hash } });
    expect(response.status).toBe(200);
  });

  it.each([
    ["another wallet's vote", async () => (await voteOnChain(h(), voter1, userPod, parseEther("1"))).hash, /not sent by the caller/],
    ["a reverted vote", async () => h().sendReverted(agent.account, "PodManager", "vote", [userPod.tokenId, parseEther("1000000"), true]), /reverted/],
    ["a transaction of another kind", async () => (await h().write(agent.account, "SubnetManager", "boost", [research.tokenId, 1n])).transactionHash, /not a call to PodManager/],
    ["an unknown hash", async () => keccak256(toHex("nothing")), /not found/],
  ])("answers 400 for %s", async (_name, make, message) => {
    const response = await agent.request(`${BASE}/agents/${agent.id}/pods/${userPod.id}/votes`, { body: { txHash: await make() } });
    expect(response.status).toBe(400);
    expect((await json(response)).error).toMatch(message);
  });

  it("answers 400 for a vote on another pod", async () => {
    const other = await mintedPod(h(), publisher, curatorB, research, { podName: "Other pod" });
    const vote = await voteOnChain(h(), agent.account, other, parseEther("1"));
    const response = await agent.request(`${BASE}/agents/${agent.id}/pods/${userPod.id}/votes`, { body: { txHash: vote.hash } });
    expect(response.status).toBe(400);
    expect((await json(response)).error).toMatch(/does not match/);
  });

  it("answers 400 for a missing or malformed txHash and 404 for an unknown pod", async () => {
    for (const body of [{}, { txHash: "0x12" }]) {
      expect((await agent.request(`${BASE}/agents/${agent.id}/pods/${userPod.id}/votes`, { body })).status).toBe(400);
    }
    const response = await agent.request(`${BASE}/agents/${agent.id}/pods/${randomUUID()}/votes`, { body: { txHash: hash } });
    expect(response.status).toBe(404);
  });
});

describe("OpenAPI document", () => {
  it("lists every engagement and agent route with its security scheme", async () => {
    const doc = await json(await h().request("/openapi.json"));
    const expected: Array<[string, string, string | null]> = [
      ["/api/v1/pods/{podId}/comments", "get", "idpCookie"],
      ["/api/v1/pods/{podId}/comments", "post", "idpCookie"],
      ["/api/v1/pods/{podId}/votes", "post", "idpCookie"],
      ["/api/v1/public/pods/{podId}/votes/epochs/{epoch}", "get", null],
      ["/api/v1/feedback/pods/{id}", "post", "idpCookie"],
      ["/api/v1/stakes/boost", "post", "idpCookie"],
      ["/api/v1/locks/{address}", "get", "idpCookie"],
      ["/api/v1/agents/register", "post", null],
      ["/api/v1/agents/wallet-nonce", "post", null],
      ["/api/v1/agents/{agentId}/wallet", "post", "agentBearer"],
      ["/api/v1/agents/{agentId}", "patch", "agentBearer"],
      ["/api/v1/agents/subnets", "get", null],
      ["/api/v1/agents/{agentId}/subnets", "post", "agentBearer"],
      ["/api/v1/agents/{agentId}/pods", "post", "agentBearer"],
      ["/api/v1/agents/{agentId}/pods/{podId}/archive", "patch", "agentBearer"],
      ["/api/v1/agents/{agentId}/pods/{podId}/votes", "post", "agentBearer"],
      ["/api/v1/agents/subnets/{subnetId}/datasets/subscriptions/packages", "get", null],
      ["/api/v1/agents/{agentId}/subnets/{subnetId}/datasets/subscriptions/packages/{packageId}/orders", "post", "agentBearer"],
      ["/api/v1/agents/{agentId}/subnets/{subnetId}/datasets/subscriptions/packages/orders", "get", "agentBearer"],
      ["/api/v1/agents/{agentId}/subnets/{subnetId}/datasets", "get", "agentBearer"],
    ];
    for (const [path, method, scheme] of expected) {
      const operation = doc.paths[path]?.[method];
      expect(operation, `${method} ${path}`).toBeDefined();
      expect(operation.security ?? null).toEqual(scheme ? [{ [scheme]: [] }] : null);
    }
    expect(doc.components.securitySchemes).toMatchObject({
      idpCookie: { type: "apiKey", in: "cookie", name: "idp-token" },
      agentBearer: { type: "http", scheme: "bearer" },
    });
  });
});
