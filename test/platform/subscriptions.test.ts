/**
 * Subscription packages and orders (spec §4.5): packages priced at the datanet's CORE access fee,
 * orders verified against the payment transaction (real payments on anvil), CREATED → VERIFIED.
 */
import { randomUUID } from "node:crypto";
import { keccak256, parseEther, toHex } from "viem";
import { beforeAll, describe, expect, it } from "vitest";
import { roleAccount } from "../../devnet/accounts";
import { appWithAgentsConfig, bindWallet, eventually, publishDatanet, registerAgent, type Agent, type Ref } from "./agents-harness";
import { BASE, json, subnetDraftBody, usePlatformHarness, type Session } from "./harness";

const h = usePlatformHarness({ indexer: true });
const curatorA = roleAccount("curatorA");
const buyer = roleAccount("buyer");

let owner: Session;
let research: Ref;
let free: Ref;
let other: Ref;
let agent: Agent;

const packagesPath = (subnet: string) => `${BASE}/agents/subnets/${subnet}/datasets/subscriptions/packages`;
const ordersPath = (agentId: string, subnet: string, pkg = "monthly") =>
  `${BASE}/agents/${agentId}/subnets/${subnet}/datasets/subscriptions/packages/${pkg}/orders`;
const listPath = (agentId: string, subnet: string) =>
  `${BASE}/agents/${agentId}/subnets/${subnet}/datasets/subscriptions/packages/orders`;

async function pay(who = agent, subnet = research, to = who.account.address) {
  const receipt = await h().write(who.account, "SubnetManager", "accessSubnetWithCOREFee", [subnet.tokenId, to]);
  return receipt.transactionHash;
}

beforeAll(async () => {
  owner = await h().signIn("owner", curatorA);
  for (const account of [curatorA, buyer]) await h().fund(account);
  research = await publishDatanet(h(), owner, curatorA, "Research");
  free = await publishDatanet(h(), owner, curatorA, "Free");
  other = await publishDatanet(h(), owner, curatorA, "Other");
  for (const subnet of [research, other]) {
    await h().write(curatorA, "SubnetManager", "setAccessFeeCORE", [subnet.tokenId, parseEther("15.5")]);
  }
  await h().write(curatorA, "SubnetManager", "setAccessFeePrimaryToken", [research.tokenId, parseEther("2")]);
  agent = await registerAgent(h(), { name: "Buyer bot", description: "Buys datasets" }, { funded: true });
  // bound to its own generated wallet by signature, so a payment of any other sender is refused
  await bindWallet(h(), agent);
  await h().caughtUp();
  await eventually(async () => {
    const response = await h().request(packagesPath(other.id));
    return response.status === 200 && (await json(response)).data.subscriptionPackages[0].paymentDetails.amount === 15.5;
  });
});

describe("GET /agents/subnets/{subnetId}/datasets/subscriptions/packages", () => {
  it("lists the configured packages priced at the datanet's CORE access fee, without auth", async () => {
    const response = await h().request(packagesPath(research.id));
    expect(response.status).toBe(200);
    const p = h().devnet.protocol;
    const expected = {
      data: {
        subscriptionPackages: [
          {
            id: "monthly",
            subscriptionDays: 30,
            paymentDetails: {
              amount: 15.5,
              receiverAddress: p.address("SubnetManager").toLowerCase(),
              currencyAddress: p.address("CoreToken").toLowerCase(),
              currencyDecimals: 18,
              chainId: 8453,
            },
          },
        ],
      },
    };
    expect(await json(response)).toEqual(expected);
    expect(await json(await h().request(packagesPath(String(research.tokenId))))).toEqual(expected);
    expect((await json(await h().request(packagesPath(free.id)))).data.subscriptionPackages[0].paymentDetails.amount).toBe(0);
  });

  it("lists every package of the configuration", async () => {
    const custom = appWithAgentsConfig(h(), {
      subscriptionPackages: [
        { id: "weekly", subscriptionDays: 7 },
        { id: "yearly", subscriptionDays: 365 },
      ],
    });
    const { data } = await json(await custom.request(packagesPath(research.id)));
    expect(data.subscriptionPackages.map((p: { id: string; subscriptionDays: number }) => [p.id, p.subscriptionDays])).toEqual([
      ["weekly", 7],
      ["yearly", 365],
    ]);
  });

  it("answers 404 for unknown, malformed and unpublished datanets", async () => {
    const draft = (await json(await owner.post(`${BASE}/me/subnets`, subnetDraftBody()))).data.id;
    for (const id of [randomUUID(), "abc", draft, "999999"]) {
      const response = await h().request(packagesPath(id));
      expect(response.status).toBe(404);
      expect(await json(response)).toEqual({ error: "Datanet not found" });
    }
  });
});

describe("orders", () => {
  it("records a verified payment as a VERIFIED order expiring after the package's days", async () => {
    const txHash = await pay();
    const before = Date.now();
    const response = await agent.request(ordersPath(agent.id, research.id), { body: { txHash } });
    expect(response.status).toBe(201);
    const { data } = await json(response);
    expect(data).toEqual({ orderId: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    const list = await json(await agent.request(listPath(agent.id, research.id)));
    expect(list).toEqual({
      data: {
        orders: [
          { id: data.orderId, package: { id: "monthly", subscriptionDays: 30 }, status: "VERIFIED", expiresAt: expect.any(String) },
        ],
      },
    });
    const expiresAt = Date.parse(list.data.orders[0].expiresAt);
    expect(expiresAt).toBeGreaterThanOrEqual(before + 30 * 86_400_000 - 1_000);
    expect(expiresAt).toBeLessThanOrEqual(Date.now() + 30 * 86_400_000);
    // reused
    const again = await agent.request(ordersPath(agent.id, research.id), { body: { txHash } });
    expect(again.status).toBe(400);
    expect(await json(again)).toEqual({ error: "Transaction already used" });
  });

  it("accepts a payment of the fee in force at its block, even if the fee changed since", async () => {
    const txHash = await pay(agent, other);
    await h().write(curatorA, "SubnetManager", "setAccessFeeCORE", [other.tokenId, parseEther("20")]);
    const response = await agent.request(ordersPath(agent.id, String(other.tokenId)), { body: { txHash } });
    expect(response.status).toBe(201);
  });

  it("accepts a free datanet's access (no CORE transfer)", async () => {
    const response = await agent.request(ordersPath(agent.id, free.id), { body: { txHash: await pay(agent, free) } });
    expect(response.status).toBe(201);
  });

  it("keeps an order CREATED until its payment has the required confirmations", async () => {
    const strict = appWithAgentsConfig(h(), { orderMinConfirmations: 3 });
    const other = await registerAgent(h(), { name: "Patient", description: "Waits" }, { funded: true });
    const headers = { Authorization: `Bearer ${other.credential}` };
    const txHash = await pay(other);
    const created = await strict.request(ordersPath(other.id, research.id), { body: { txHash }, headers });
    expect(created.status).toBe(201);
    const { orderId } = (await json(created)).data;
    const pending = await json(await strict.request(listPath(other.id, research.id), { headers }));
    expect(pending.data.orders).toEqual([
      { id: orderId, package: { id: "monthly", subscriptionDays: 30 }, status: "CREATED", expiresAt: null },
    ]);
    await h().devnet.protocol.testClient.mine({ blocks: 2 });
    const verified = await json(await strict.request(listPath(other.id, research.id), { headers }));
    expect(verified.data.orders).toEqual([
      { id: orderId, package: { id: "monthly", subscriptionDays: 30 }, status: "VERIFIED", expiresAt: expect.any(String) },
    ]);
  });

  it("verifies a CREATED order against the wallet that paid, even after the agent binds another wallet; its generated wallet still pays", async () => {
    const strict = appWithAgentsConfig(h(), { orderMinConfirmations: 3 });
    const mover = await registerAgent(h(), { name: "Mover", description: "Moves to the user's wallet" }, { funded: true });
    const headers = { Authorization: `Bearer ${mover.credential}` };
    const created = await strict.request(ordersPath(mover.id, research.id), { body: { txHash: await pay(mover) }, headers });
    expect(created.status).toBe(201);
    await bindWallet(h(), mover, buyer);
    await h().devnet.protocol.testClient.mine({ blocks: 2 });
    const orders = (await json(await strict.request(listPath(mover.id, research.id), { headers }))).data.orders;
    expect(orders).toEqual([
      { id: (await json(created)).data.orderId, package: { id: "monthly", subscriptionDays: 30 }, status: "VERIFIED", expiresAt: expect.any(String) },
    ]);
    // payments of its own generated wallet are still the agent's, beside the bound wallet's
    const late = await mover.request(ordersPath(mover.id, research.id), { body: { txHash: await pay(mover) } });
    expect(late.status).toBe(201);
    // a third wallet's payment is not
    const stranger = await h().write(curatorA, "SubnetManager", "accessSubnetWithCOREFee", [research.tokenId, mover.account.address]);
    const refused = await mover.request(ordersPath(mover.id, research.id), { body: { txHash: stranger.transactionHash } });
    expect(refused.status).toBe(400);
    expect((await json(refused)).error).toMatch(/not sent by the caller/);
  });

  describe("rejects a txHash that does not prove the payment (400)", () => {
    it.each([
      ["an unknown hash", async () => keccak256(toHex("nothing")), /not found/],
      ["a reverted payment", async () => h().sendReverted(agent.account, "SubnetManager", "accessSubnetWithCOREFee", [999n, agent.account.address]), /reverted/],
      ["a transaction of another kind", async () => (await h().write(agent.account, "SubnetManager", "boost", [research.tokenId, 1n])).transactionHash, /no SubnetAccessGranted event/],
      ["a transaction to another contract", async () => (await h().write(agent.account, "CoreToken", "transfer", [buyer.address, 1n])).transactionHash, /not a call to SubnetManager/],
      ["a payment sent by another wallet for the agent", async () => (await h().write(buyer, "SubnetManager", "accessSubnetWithCOREFee", [research.tokenId, agent.account.address])).transactionHash, /not sent by the caller/],
      ["a payment for another account", async () => pay(agent, research, buyer.address), /does not match/],
      ["a payment for another datanet", async () => pay(agent, other), /does not match/],
      [
        "a payment in the primary token",
        async () => (await h().write(agent.account, "SubnetManager", "accessSubnetWithPrimaryTokenFee", [research.tokenId, agent.account.address])).transactionHash,
        /does not match/,
      ],
    ])("%s", async (_name, make, message) => {
      const txHash = await make();
      const response = await agent.request(ordersPath(agent.id, research.id), { body: { txHash } });
      expect(response.status).toBe(400);
      expect((await json(response)).error).toMatch(message);
    });
  });

  it("answers 404 for an unknown package or datanet, 400 for a malformed txHash", async () => {
    const txHash = keccak256(toHex("x"));
    const unknownPackage = await agent.request(ordersPath(agent.id, research.id, "lifetime"), { body: { txHash } });
    expect(unknownPackage.status).toBe(404);
    expect(await json(unknownPackage)).toEqual({ error: "Package not found" });
    const unknownSubnet = await agent.request(ordersPath(agent.id, randomUUID()), { body: { txHash } });
    expect(await json(unknownSubnet)).toEqual({ error: "Datanet not found" });
    for (const body of [{}, { txHash: "0x1" }, { txHash: 5 }]) {
      expect((await agent.request(ordersPath(agent.id, research.id), { body })).status).toBe(400);
    }
    expect((await agent.request(listPath(agent.id, randomUUID()))).status).toBe(404);
  });

  it("lists only the caller's orders for that datanet", async () => {
    const fresh = await registerAgent(h(), { name: "Fresh", description: "No orders" });
    expect(await json(await fresh.request(listPath(fresh.id, research.id)))).toEqual({ data: { orders: [] } });
  });
});
