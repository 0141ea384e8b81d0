/** POST /stakes/boost: a targeted stake proven by its SubnetBoosted event (real transactions on anvil). */
import { randomUUID } from "node:crypto";
import { count, eq } from "drizzle-orm";
import { keccak256, parseEther, toHex } from "viem";
import { beforeAll, describe, expect, it } from "vitest";
import { boostsReported } from "../../api/db/offchain";
import { roleAccount } from "../../devnet/accounts";
import { publishDatanet, type Ref } from "./agents-harness";
import { badCookies, BASE, json, subnetDraftBody, usePlatformHarness, type Session } from "./harness";

const h = usePlatformHarness();
const curatorA = roleAccount("curatorA");
const staker = roleAccount("buyer");
const someoneElse = roleAccount("voter2");

let owner: Session;
let session: Session;
let walletless: Session;
let research: Ref;
let other: Ref;
let ownerDraft: string;

const PATH = `${BASE}/stakes/boost`;
const stored = async () => (await h().store.db.select({ n: count() }).from(boostsReported))[0]!.n;

async function boost(account = staker, subnet: bigint = research.tokenId, amount = parseEther("250.5")) {
  const receipt = await h().write(account, "SubnetManager", "boost", [subnet, amount]);
  return receipt.transactionHash;
}

beforeAll(async () => {
  owner = await h().signIn("owner", curatorA);
  session = await h().signIn("staker", staker, "Stella");
  walletless = await h().signIn("walletless");
  for (const account of [curatorA, staker, someoneElse]) await h().fund(account);
  research = await publishDatanet(h(), owner, curatorA, "Research");
  other = await publishDatanet(h(), owner, curatorA, "Other");
  ownerDraft = (await json(await owner.post(`${BASE}/me/subnets`, subnetDraftBody()))).data.id;
});

describe("POST /stakes/boost", () => {
  it("records the caller's stake, keeping the decimal string as sent (201 with its id)", async () => {
    const txHash = await boost();
    const response = await session.post(PATH, { amount: "250.50", subnetId: research.id, txHash });
    expect(response.status).toBe(201);
    const { data } = await json(response);
    expect(data).toEqual({ id: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    const [row] = await h().store.db.select().from(boostsReported).where(eq(boostsReported.id, data.id));
    expect(row).toMatchObject({
      subnetId: research.id,
      subnetTokenId: String(research.tokenId),
      staker: staker.address.toLowerCase(),
      amount: "250.50",
      amountRaw: parseEther("250.5").toString(),
      txHash: txHash.toLowerCase(),
    });
  });

  it("takes 18 decimals exactly and the datanet by tokenId", async () => {
    const txHash = await boost(staker, research.tokenId, 1n);
    const response = await session.post(PATH, { amount: "0.000000000000000001", subnetId: String(research.tokenId), txHash });
    expect(response.status).toBe(201);
  });

  it("accepts a datanet that exists only on chain, by tokenId", async () => {
    const p = h().devnet.protocol;
    const tokenId = await p.read<bigint>("SubnetManager", "nextSubnetId");
    await h().write(curatorA, "SubnetManager", "publishSubnet", [p.address("DemoToken")]);
    const txHash = await boost(staker, tokenId, parseEther("3"));
    expect((await session.post(PATH, { amount: "3", subnetId: String(tokenId), txHash })).status).toBe(201);
  });

  it("rejects a reused transaction", async () => {
    const txHash = await boost(staker, research.tokenId, parseEther("1"));
    expect((await session.post(PATH, { amount: "1", subnetId: research.id, txHash })).status).toBe(201);
    const again = await session.post(PATH, { amount: "1", subnetId: research.id, txHash });
    expect(again.status).toBe(400);
    expect(await json(again)).toEqual({ error: "Transaction already used" });
  });

  describe("rejects a txHash that does not prove the stake (400, nothing stored)", () => {
    it.each([
      ["an unknown hash", async () => keccak256(toHex("nothing")), /not found/],
      ["a reverted transaction", async () => h().sendReverted(staker, "SubnetManager", "boost", [999n, 1n]), /reverted/],
      [
        "a transaction of another kind",
        async () => (await h().write(staker, "SubnetManager", "accessSubnetWithCOREFee", [research.tokenId, staker.address])).transactionHash,
        /no SubnetBoosted event/,
      ],
      [
        "a transaction to another contract",
        async () => (await h().write(staker, "CoreToken", "transfer", [someoneElse.address, 1n])).transactionHash,
        /not a call to SubnetManager/,
      ],
      ["another wallet's stake", async () => boost(someoneElse), /not sent by the caller/],
      ["a stake of another amount", async () => boost(staker, research.tokenId, parseEther("250.4")), /does not match/],
      ["a stake on another datanet", async () => boost(staker, other.tokenId), /does not match/],
    ])("%s", async (_name, make, message) => {
      const txHash = await make();
      const before = await stored();
      const response = await session.post(PATH, { amount: "250.5", subnetId: research.id, txHash });
      expect(response.status).toBe(400);
      expect((await json(response)).error).toMatch(message);
      expect(await stored()).toBe(before);
    });
  });

  const hash = keccak256(toHex("any"));
  it.each([
    ["amount missing", { amount: undefined }],
    ["amount as a number", { amount: 250.5 }],
    ["amount not a number", { amount: "abc" }],
    ["amount negative", { amount: "-1" }],
    ["amount zero", { amount: "0.000" }],
    ["amount beyond 18 decimals", { amount: "1.0000000000000000001" }],
    ["amount in exponent form", { amount: "1e3" }],
    ["amount with spaces", { amount: " 1" }],
    ["subnetId missing", { subnetId: undefined }],
    ["subnetId empty", { subnetId: "" }],
    ["txHash missing", { txHash: undefined }],
    ["txHash malformed", { txHash: "0xabc" }],
  ])("answers 400 for %s", async (_name, override) => {
    const response = await session.post(PATH, { amount: "1", subnetId: research.id, txHash: hash, ...override });
    expect(response.status).toBe(400);
    expect(Object.keys(await json(response))).toEqual(["error"]);
  });

  it("answers 400 for a user without a wallet", async () => {
    const response = await walletless.post(PATH, { amount: "1", subnetId: research.id, txHash: hash });
    expect(await json(response)).toEqual({ error: "No wallet linked to this account" });
  });

  it("answers 400 for the caller's own unpublished datanet and 404 for another user's", async () => {
    const own = await owner.post(PATH, { amount: "1", subnetId: ownerDraft, txHash: hash });
    expect(own.status).toBe(400);
    expect(await json(own)).toEqual({ error: "Datanet is not published yet" });
    const foreign = await session.post(PATH, { amount: "1", subnetId: ownerDraft, txHash: hash });
    expect(foreign.status).toBe(404);
  });

  it.each([["an unknown id", randomUUID()], ["a malformed id", "research"]])("answers 404 for %s", async (_name, id) => {
    const response = await session.post(PATH, { amount: "1", subnetId: id, txHash: hash });
    expect(response.status).toBe(404);
    expect(await json(response)).toEqual({ error: "Datanet not found" });
  });

  it("answers 401 for every bad cookie", async () => {
    for (const cookie of await badCookies(h(), { sub: "staker", wallet: staker.address })) {
      const response = await h().request(PATH, { cookie, body: { amount: "1", subnetId: research.id, txHash: hash } });
      expect(response.status).toBe(401);
      expect(await json(response)).toEqual({ error: "Unauthorized" });
    }
  });
});
