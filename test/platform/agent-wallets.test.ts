/**
 * The wallet an agent acts for: nonces (POST /agents/wallet-nonce), binding at registration with
 * the wallet's signature, binding later (POST /agents/{agentId}/wallet), the opt-in server wallet
 * (createWallet), and agents without a wallet. Every refused proof is a 400 that changes nothing.
 * The chain flows with a bound wallet are in live-client-flows.test.ts.
 */
import { randomUUID } from "node:crypto";
import { count, eq } from "drizzle-orm";
import { getAddress, keccak256, toHex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { describe, expect, it } from "vitest";
import { agents, agentWalletNonces } from "../../api/db/offchain";
import { roleAccount } from "../../devnet/accounts";
import { registerAgent, registerAgentForWallet, walletProof } from "./agents-harness";
import { BASE, json, podDraftBody, subnetDraftBody, usePlatformHarness } from "./harness";

const h = usePlatformHarness();
const user = roleAccount("voter1");
const stranger = privateKeyToAccount(generatePrivateKey());

const agentCount = async () => (await h().store.db.select({ n: count() }).from(agents))[0]!.n;
const register = (body: Record<string, unknown>) =>
  h().request(`${BASE}/agents/register`, { body: { name: "Scout", description: "Finds datasets", ...body } });
const bearer = (credential: string) => ({ Authorization: `Bearer ${credential}` });

async function walletlessAgent(name = "Walletless") {
  const response = await register({ name, createWallet: false });
  expect(response.status).toBe(200);
  const { data } = await json(response);
  expect(data.walletAddress).toBeNull();
  return data as { id: string; apiKey: string };
}

function bind(agent: { id: string; apiKey: string }, body: unknown) {
  return h().request(`${BASE}/agents/${agent.id}/wallet`, { body, headers: bearer(agent.apiKey) });
}

describe("POST /agents/wallet-nonce", () => {
  it("issues a single-use nonce and the message naming the wallet, the agent to be and the expiry", async () => {
    const before = Date.now();
    const response = await h().request(`${BASE}/agents/wallet-nonce`, { body: { walletAddress: user.address.toLowerCase() } });
    expect(response.status).toBe(200);
    const { data } = await json(response);
    expect(data).toEqual({ nonce: expect.stringMatching(/^[0-9a-f-]{36}$/), message: expect.any(String), expiresAt: expect.any(String) });
    expect(data.message).toContain(`Address: ${getAddress(user.address)}`);
    expect(data.message).toContain("Agent: a new agent, registered with this nonce");
    expect(data.message).toContain(`Nonce: ${data.nonce}`);
    expect(data.message).toContain(`Expires at: ${data.expiresAt}`);
    const expiresAt = Date.parse(data.expiresAt);
    expect(expiresAt).toBeGreaterThanOrEqual(before + 5 * 60_000);
    expect(expiresAt).toBeLessThanOrEqual(Date.now() + 5 * 60_000);
    const [row] = await h().store.db.select().from(agentWalletNonces).where(eq(agentWalletNonces.nonce, data.nonce));
    expect(row).toMatchObject({ walletAddress: user.address.toLowerCase(), agentId: null, message: data.message, usedAt: null });
  });

  it("names the agent when the nonce is for binding an existing one", async () => {
    const agent = await walletlessAgent();
    const { message } = await walletProof(h(), user, agent.id);
    expect(message).toContain(`Agent: ${agent.id}`);
  });

  it("answers 404 for an unknown or malformed agentId and 400 for a bad address", async () => {
    for (const agentId of [randomUUID(), "not-an-id"]) {
      const response = await h().request(`${BASE}/agents/wallet-nonce`, { body: { walletAddress: user.address, agentId } });
      expect(response.status).toBe(404);
      expect(await json(response)).toEqual({ error: "Agent not found" });
    }
    for (const walletAddress of ["0x1234", user.address.slice(2), 42, undefined]) {
      const response = await h().request(`${BASE}/agents/wallet-nonce`, { body: { walletAddress } });
      expect(response.status).toBe(400);
      expect((await json(response)).error).toMatch(/walletAddress/);
    }
  });
});

describe("registration bound to the user's wallet", () => {
  it("binds the wallet whose signature of the nonce's message comes with it; no key is returned or stored", async () => {
    const agent = await registerAgentForWallet(h(), user, { name: "Node", description: "Runs on the operator's machine" });
    expect(agent.registration).toMatchObject({ walletAddress: user.address.toLowerCase(), apiKey: expect.stringMatching(/^agt_/) });
    const [row] = await h().store.db.select().from(agents).where(eq(agents.id, agent.id));
    expect(row!.walletAddress).toBe(user.address.toLowerCase());
    expect(row!.walletBoundAt).toBeInstanceOf(Date);
  });

  it("accepts the address in any case", async () => {
    const proof = await walletProof(h(), user);
    const response = await register({ walletAddress: user.address.toUpperCase().replace("0X", "0x"), nonce: proof.nonce, signature: proof.signature });
    expect(response.status).toBe(200);
    expect((await json(response)).data.walletAddress).toBe(user.address.toLowerCase());
  });

  it("uses a nonce once: a replayed proof is 400 and creates nothing", async () => {
    const proof = await walletProof(h(), user);
    const body = { walletAddress: proof.walletAddress, nonce: proof.nonce, signature: proof.signature };
    expect((await register(body)).status).toBe(200);
    const before = await agentCount();
    const again = await register(body);
    expect(again.status).toBe(400);
    expect(await json(again)).toEqual({ error: "The nonce was already used" });
    expect(await agentCount()).toBe(before);
  });

  it("lets exactly one of two concurrent registrations with the same proof through", async () => {
    const proof = await walletProof(h(), user);
    const body = { walletAddress: proof.walletAddress, nonce: proof.nonce, signature: proof.signature };
    const before = await agentCount();
    const answers = await Promise.all([register(body), register(body)]);
    expect(answers.map((r) => r.status).sort()).toEqual([200, 400]);
    expect(await agentCount()).toBe(before + 1);
  });

  const refusals: Array<[string, () => Promise<Record<string, unknown>>, RegExp]> = [
    [
      "a signature by another key",
      async () => {
        const proof = await walletProof(h(), user);
        return { walletAddress: user.address, nonce: proof.nonce, signature: await stranger.signMessage({ message: proof.message }) };
      },
      /not this wallet's signature/,
    ],
    [
      "the wallet's signature of another text",
      async () => {
        const proof = await walletProof(h(), user);
        return { walletAddress: user.address, nonce: proof.nonce, signature: await user.signMessage({ message: "hello" }) };
      },
      /not this wallet's signature/,
    ],
    [
      "a nonce issued for another wallet",
      async () => {
        const proof = await walletProof(h(), stranger);
        return { walletAddress: user.address, nonce: proof.nonce, signature: await user.signMessage({ message: proof.message }) };
      },
      /another wallet/,
    ],
    [
      "a nonce issued for an existing agent",
      async () => {
        const proof = await walletProof(h(), user, (await walletlessAgent()).id);
        return { walletAddress: user.address, nonce: proof.nonce, signature: proof.signature };
      },
      /existing agent/,
    ],
    [
      "an expired nonce",
      async () => {
        const proof = await walletProof(h(), user);
        await h().store.db.update(agentWalletNonces).set({ expiresAt: new Date(Date.now() - 1_000) }).where(eq(agentWalletNonces.nonce, proof.nonce));
        return { walletAddress: user.address, nonce: proof.nonce, signature: proof.signature };
      },
      /expired/,
    ],
    ["an unknown nonce", async () => ({ walletAddress: user.address, nonce: randomUUID(), signature: `0x${"11".repeat(65)}` }), /Unknown nonce/],
    ["a malformed nonce", async () => ({ walletAddress: user.address, nonce: "nonce", signature: `0x${"11".repeat(65)}` }), /Unknown nonce/],
    [
      "a signature that is not hex",
      async () => {
        const proof = await walletProof(h(), user);
        return { walletAddress: user.address, nonce: proof.nonce, signature: "signed" };
      },
      /not this wallet's signature/,
    ],
    ["walletAddress without nonce and signature", async () => ({ walletAddress: user.address }), /needs nonce and signature/],
    ["a signature without walletAddress", async () => ({ nonce: randomUUID(), signature: "0x12" }), /go with walletAddress/],
    [
      "walletAddress together with createWallet",
      async () => {
        const proof = await walletProof(h(), user);
        return { walletAddress: user.address, nonce: proof.nonce, signature: proof.signature, createWallet: true };
      },
      /either walletAddress .* or createWallet/,
    ],
    ["a malformed walletAddress", async () => ({ walletAddress: "0xabc", nonce: randomUUID(), signature: "0x12" }), /walletAddress/],
  ];

  it.each(refusals)("answers 400 for %s, creating nothing", async (_name, make, message) => {
    const body = await make();
    const before = await agentCount();
    const response = await register(body);
    expect(response.status).toBe(400);
    const answer = await json(response);
    expect(Object.keys(answer)).toEqual(["error"]);
    expect(answer.error).toMatch(message);
    expect(await agentCount()).toBe(before);
  });

  it("leaves a refused proof's nonce usable (nothing consumed)", async () => {
    const proof = await walletProof(h(), user);
    const forged = await register({ walletAddress: user.address, nonce: proof.nonce, signature: await stranger.signMessage({ message: proof.message }) });
    expect(forged.status).toBe(400);
    expect((await register({ walletAddress: user.address, nonce: proof.nonce, signature: proof.signature })).status).toBe(200);
  });
});

describe("agents without a wallet", () => {
  it("answer 400 for a transaction the chain does not have, on every route that records one, and stay without a wallet", async () => {
    const agent = await walletlessAgent();
    const txHash = keccak256(toHex("any"));
    const p = h().devnet.protocol;
    const routes = [
      { path: `/agents/${agent.id}/subnets`, body: { ...subnetDraftBody({}, p.address("DemoToken")), txHash } },
      { path: `/agents/${agent.id}/pods`, body: { ...podDraftBody(randomUUID()), txHash } },
    ];
    for (const route of routes) {
      const response = await h().request(`${BASE}${route.path}`, { body: route.body, headers: bearer(agent.apiKey) });
      expect(response.status, route.path).toBe(400);
      expect(await json(response)).toEqual({ error: "Transaction not found or not yet mined" });
    }
    const [row] = await h().store.db.select().from(agents).where(eq(agents.id, agent.id));
    expect(row).toMatchObject({ walletAddress: null, walletBoundAt: null });
  });
});

describe("POST /agents/{agentId}/wallet", () => {
  it("binds the proven wallet to an agent that had none", async () => {
    const agent = await walletlessAgent();
    const proof = await walletProof(h(), user, agent.id);
    const response = await bind(agent, { walletAddress: proof.walletAddress, nonce: proof.nonce, signature: proof.signature });
    expect(response.status).toBe(200);
    expect(await json(response)).toEqual({ data: { id: agent.id, walletAddress: user.address.toLowerCase() } });
    const [row] = await h().store.db.select().from(agents).where(eq(agents.id, agent.id));
    expect(row).toMatchObject({ walletAddress: user.address.toLowerCase(), walletBoundAt: expect.any(Date) });
  });

  it("binds the user's wallet to an agent that has a generated wallet, keeping the generated one as its own", async () => {
    const agent = await registerAgent(h(), { name: "Migrating", description: "Had a server wallet" });
    expect(agent.registration.privateKey).toMatch(/^0x[0-9a-f]{64}$/);
    const proof = await walletProof(h(), user, agent.id);
    const response = await bind({ id: agent.id, apiKey: agent.credential }, { walletAddress: proof.walletAddress, nonce: proof.nonce, signature: proof.signature });
    expect(response.status).toBe(200);
    const [row] = await h().store.db.select().from(agents).where(eq(agents.id, agent.id));
    expect(row).toMatchObject({ walletAddress: user.address.toLowerCase(), ownWalletAddress: agent.walletAddress });
  });

  it("lets a second agent bind a wallet already bound to another only with that wallet's own signature", async () => {
    const first = await registerAgentForWallet(h(), user, { name: "First", description: "Bound to the user's wallet" });
    const second = await walletlessAgent("Second");
    const rowOf = async (id: string) => (await h().store.db.select().from(agents).where(eq(agents.id, id)))[0]!;

    // no signature of the wallet: another key signs the nonce issued for the second agent
    const ownNonce = await walletProof(h(), user, second.id);
    const forged = await bind(second, { walletAddress: user.address, nonce: ownNonce.nonce, signature: await stranger.signMessage({ message: ownNonce.message }) });
    expect(forged.status).toBe(400);
    expect((await json(forged)).error).toMatch(/not this wallet's signature/);

    // the first agent's proof (its nonce, signed by the wallet) cannot be reused for the second agent
    const firstsProof = await walletProof(h(), user, first.id);
    const borrowed = await bind(second, { walletAddress: user.address, nonce: firstsProof.nonce, signature: firstsProof.signature });
    expect(borrowed.status).toBe(400);
    expect((await json(borrowed)).error).toMatch(/another agent/);

    // nor a registration's proof
    const registration = await walletProof(h(), user);
    const wrongKind = await bind(second, { walletAddress: user.address, nonce: registration.nonce, signature: registration.signature });
    expect(wrongKind.status).toBe(400);
    expect((await json(wrongKind)).error).toMatch(/register a new agent/);

    // an unsigned body
    const unsigned = await bind(second, { walletAddress: user.address, nonce: ownNonce.nonce });
    expect(unsigned.status).toBe(400);

    expect((await rowOf(second.id)).walletAddress).toBeNull();
    expect((await rowOf(first.id)).walletAddress).toBe(user.address.toLowerCase());

    // with the wallet's signature of the second agent's nonce, one wallet backs both agents
    const bound = await bind(second, { walletAddress: user.address, nonce: ownNonce.nonce, signature: ownNonce.signature });
    expect(bound.status).toBe(200);
    expect((await rowOf(second.id)).walletAddress).toBe(user.address.toLowerCase());
    expect((await rowOf(first.id)).walletAddress).toBe(user.address.toLowerCase());
  });

  it("answers 401 without the agent's credential and 403 on another agent's id", async () => {
    const agent = await walletlessAgent();
    const other = await walletlessAgent("Other");
    const proof = await walletProof(h(), user, agent.id);
    const body = { walletAddress: proof.walletAddress, nonce: proof.nonce, signature: proof.signature };
    const anonymous = await h().request(`${BASE}/agents/${agent.id}/wallet`, { body });
    expect(anonymous.status).toBe(401);
    const foreign = await h().request(`${BASE}/agents/${agent.id}/wallet`, { body, headers: bearer(other.apiKey) });
    expect(foreign.status).toBe(403);
    // the proof is still good for its agent
    expect((await bind(agent, body)).status).toBe(200);
  });
});

describe("OpenAPI document", () => {
  it("describes the wallet routes with their operationIds and examples", async () => {
    const doc = await json(await h().request("/openapi.json"));
    const schema = (ref: { $ref?: string }) => doc.components.schemas[ref.$ref!.split("/").pop()!];
    for (const [path, operationId, security] of [
      ["/api/v1/agents/wallet-nonce", "createAgentWalletNonce", null],
      ["/api/v1/agents/{agentId}/wallet", "bindAgentWallet", [{ agentBearer: [] }]],
      ["/api/v1/agents/register", "registerAgent", null],
    ] as const) {
      const operation = doc.paths[path].post;
      expect(operation.operationId).toBe(operationId);
      expect(operation.security ?? null).toEqual(security);
      const request = schema(operation.requestBody.content["application/json"].schema);
      if (path !== "/api/v1/agents/register") {
        expect(request.example, `${path} request example`).toMatchObject({ walletAddress: expect.stringMatching(/^0x[0-9a-f]{40}$/) });
      }
      const data = operation.responses["200"].content["application/json"].schema.properties.data;
      expect(schema(data).example, `${path} response example`).toEqual(expect.any(Object));
    }
    const registered = doc.components.schemas.RegisteredAgent;
    expect(registered.required).not.toContain("privateKey");
    expect(registered.properties.walletAddress.type).toEqual(["string", "null"]);
  });
});
