/**
 * Datanet routes (spec §4.3) through the real platform app, against anvil and the indexer:
 * draft bounds, auth, ownership, publish and the five setters with real transactions.
 */
import { keccak256, toHex, type Account } from "viem";
import { beforeAll, describe, expect, it } from "vitest";
import { createChainClient } from "../../chain/client";
import { createPlatformApp } from "../../api/platform/app";
import { createPlatformRuntime, type PlatformDeps } from "../../api/platform/app-services";
import { publicSearchQuery } from "../../api/platform/repositories/subnets";
import { roleAccount } from "../../devnet/accounts";
import { badCookies, BASE, CORE, json, subnetDraftBody, usePlatformHarness, type Session } from "./harness";

const h = usePlatformHarness({ indexer: true });
const curatorA = roleAccount("curatorA");
const curatorB = roleAccount("curatorB");

let alice: Session;
let bob: Session;
let walletless: Session;
let demoToken: `0x${string}`;

beforeAll(async () => {
  alice = await h().signIn("alice", curatorA);
  bob = await h().signIn("bob", curatorB);
  walletless = await h().signIn("carol");
  demoToken = h().devnet.protocol.address("DemoToken");
  await Promise.all([h().fund(curatorA), h().fund(curatorB)]);
});

async function createDraft(session: Session, overrides: Record<string, unknown> = {}): Promise<string> {
  const response = await session.post(`${BASE}/me/subnets`, subnetDraftBody(overrides, demoToken));
  expect(response.status).toBe(201);
  return (await json(response)).data.id;
}

/** Sends publishSubnet from `account`; returns the hash and the new token id. */
async function publishOnChain(account: Account, primaryToken: `0x${string}` = demoToken) {
  const p = h().devnet.protocol;
  const tokenId = await p.read<bigint>("SubnetManager", "nextSubnetId");
  const receipt = await h().write(account, "SubnetManager", "publishSubnet", [primaryToken]);
  return { hash: receipt.transactionHash, tokenId };
}

async function publishedDraft(session: Session, account: Account, overrides: Record<string, unknown> = {}) {
  const id = await createDraft(session, overrides);
  const { hash, tokenId } = await publishOnChain(account);
  const response = await session.post(`${BASE}/me/subnets/${id}/publish`, { subnetId: id, txHash: hash });
  expect(response.status).toBe(200);
  return { id, tokenId, hash };
}

const unknownHash = keccak256(toHex("no such transaction"));

describe("POST /me/subnets (create draft)", () => {
  it("creates a draft owned by the caller: 201 data.id, shown as a draft", async () => {
    const response = await alice.post(`${BASE}/me/subnets`, subnetDraftBody({ imageURL: "https://img.example/a.png" }, demoToken));
    expect(response.status).toBe(201);
    const body = await json(response);
    expect(Object.keys(body)).toEqual(["data"]);
    expect(body.data).toEqual({ id: expect.stringMatching(/^[0-9a-f-]{36}$/) });

    const got = await json(await alice.get(`${BASE}/me/subnets/${body.data.id}`));
    expect(got.data.subnet).toEqual({
      id: body.data.id,
      subnetName: "Research papers",
      subnetDescription: "Peer-reviewed research papers and their datasets",
      thumbnailUrl: "https://img.example/a.png",
      nativeTokenAddress: demoToken.toLowerCase(),
      nativeTokenSymbol: "DATA",
      nativeTokenDecimals: 18,
      tokenId: null,
      accessFeeCORE: 0,
      emissionsPerEpochCORE: 0,
      emissionsPerEpochPrimaryToken: 0,
      status: "draft",
      upVoteVolume: 0,
      downVoteVolume: 0,
      onboardingPublishers: "Publish one paper per pod, with its DOI",
      onboardingVoters: "Vote on the rigour and clarity of the paper",
      createdByUserId: expect.any(String),
    });
  });

  const long = (n: number) => "x".repeat(n);
  it.each([
    ["subnetCreatorType not individual/team", { subnetCreatorType: "company" }],
    ["subnetName empty", { subnetName: "" }],
    ["subnetName blank", { subnetName: "   " }],
    ["subnetName over 100", { subnetName: long(101) }],
    ["subnetDescription under 10", { subnetDescription: long(9) }],
    ["subnetDescription over 500", { subnetDescription: long(501) }],
    ["onboardingPublishers under 10", { onboardingPublishers: long(9) }],
    ["onboardingPublishers over 1000", { onboardingPublishers: long(1001) }],
    ["onboardingVoters under 10", { onboardingVoters: long(9) }],
    ["onboardingVoters over 1000", { onboardingVoters: long(1001) }],
    ["subnetGoal empty", { subnetGoal: "" }],
    ["subnetGoal over 100", { subnetGoal: long(101) }],
    ["nativeTokenAddress not an address", { nativeTokenAddress: "0x1234" }],
    ["nativeTokenSymbol empty", { nativeTokenSymbol: "" }],
    ["nativeTokenSymbol over 5", { nativeTokenSymbol: "TOOLNG" }],
    ["nativeTokenDecimals 0", { nativeTokenDecimals: 0 }],
    ["nativeTokenDecimals 19", { nativeTokenDecimals: 19 }],
    ["nativeTokenDecimals fractional", { nativeTokenDecimals: 1.5 }],
    ["nativeTokenDecimals as a string", { nativeTokenDecimals: "18" }],
    ["imageURL not a URL", { imageURL: "not a url" }],
    ["imageURL not http(s)", { imageURL: "javascript:alert(1)" }],
    ["a required field missing", { subnetGoal: undefined }],
    ["a NUL character in a text", { onboardingVoters: "vote on\u0000 quality" }],
  ])("rejects %s with 400 and stores nothing", async (_name, overrides) => {
    const before = await json(await alice.get(`${BASE}/me/subnets`));
    const response = await alice.post(`${BASE}/me/subnets`, subnetDraftBody(overrides, demoToken));
    expect(response.status).toBe(400);
    const body = await json(response);
    expect(Object.keys(body)).toEqual(["error"]);
    expect(typeof body.error).toBe("string");
    const after = await json(await alice.get(`${BASE}/me/subnets`));
    expect(after.data.subnets.length).toBe(before.data.subnets.length);
  });

  it("accepts every bound at its limit", async () => {
    for (const overrides of [
      { subnetName: long(100), subnetDescription: long(500), onboardingPublishers: long(1000), onboardingVoters: long(1000), subnetGoal: long(100), nativeTokenSymbol: "ABCDE", nativeTokenDecimals: 1, subnetCreatorType: "individual" },
      { subnetName: "x", subnetDescription: long(10), onboardingPublishers: long(10), onboardingVoters: long(10), subnetGoal: "g", nativeTokenSymbol: "A", nativeTokenDecimals: 18 },
    ]) {
      const response = await alice.post(`${BASE}/me/subnets`, subnetDraftBody(overrides, demoToken));
      expect(response.status).toBe(201);
    }
  });

  it("rejects a body that is not JSON", async () => {
    const response = await h().request(`${BASE}/me/subnets`, { cookie: alice.cookie, method: "POST", body: "{not json" });
    expect(response.status).toBe(400);
    expect(await json(response)).toEqual({ error: expect.any(String) });
  });
});

describe("auth and ownership", () => {
  const id = "00000000-0000-4000-8000-000000000000";
  const routes: Array<[string, string, unknown?]> = [
    ["GET", `${BASE}/me/subnets`],
    ["POST", `${BASE}/me/subnets`, {}],
    ["GET", `${BASE}/me/subnets/${id}`],
    ["POST", `${BASE}/me/subnets/${id}/publish`, {}],
    ["POST", `${BASE}/me/subnets/${id}/access-fee/core`, {}],
    ["POST", `${BASE}/me/subnets/${id}/access-fee/core-token`, {}],
    ["POST", `${BASE}/me/subnets/${id}/pod-publishing-fee/core`, {}],
    ["POST", `${BASE}/me/subnets/${id}/pod-republishing-fee/core`, {}],
    ["POST", `${BASE}/me/subnets/${id}/emissions-per-epoch/core`, {}],
    ["POST", `${BASE}/me/subnets/${id}/emissions-per-epoch/primary-token`, {}],
  ];

  it.each(routes)("%s %s answers 401 for a missing, malformed, expired or foreign cookie", async (method, path, body) => {
    for (const cookie of await badCookies(h(), { sub: "alice", wallet: curatorA.address })) {
      const response = await h().request(path, { method, cookie, body });
      expect(response.status).toBe(401);
      expect(await json(response)).toEqual({ error: "Unauthorized" });
    }
  });

  it("hides another user's draft (404) and lists only the caller's own", async () => {
    const mine = await createDraft(alice, { subnetName: "Alice only" });
    expect((await bob.get(`${BASE}/me/subnets/${mine}`)).status).toBe(404);
    const { hash } = await publishOnChain(curatorB);
    const response = await bob.post(`${BASE}/me/subnets/${mine}/publish`, { subnetId: mine, txHash: hash });
    expect(response.status).toBe(404);
    expect(await json(response)).toEqual({ error: "Datanet not found" });
    const listed = await json(await bob.get(`${BASE}/me/subnets`));
    expect(listed.data.subnets.map((s: { id: string }) => s.id)).not.toContain(mine);
    const aliceList = await json(await alice.get(`${BASE}/me/subnets`));
    expect(aliceList.data.subnets.map((s: { id: string }) => s.id)).toContain(mine);
  });

  it.each(["not-a-uuid", "123", "00000000-0000-4000-8000-000000000000", "%27%3B--"])(
    "answers 404 for the path id %s",
    async (bad) => {
      expect((await alice.get(`${BASE}/me/subnets/${bad}`)).status).toBe(404);
      const response = await alice.post(`${BASE}/me/subnets/${bad}/publish`, { subnetId: decodeURIComponent(bad), txHash: unknownHash });
      expect(response.status).toBe(404);
    },
  );
});

describe("POST /me/subnets/{id}/publish", () => {
  it("records a verified publish: the draft carries the tokenId and becomes active", async () => {
    const id = await createDraft(alice, { subnetName: "Published by alice" });
    const { hash, tokenId } = await publishOnChain(curatorA);
    const response = await alice.post(`${BASE}/me/subnets/${id}/publish`, { subnetId: id, txHash: hash.toUpperCase().replace("0X", "0x") });
    expect(response.status).toBe(200);
    expect(await json(response)).toEqual({ data: { success: true } });
    await h().caughtUp();
    const { data } = await json(await alice.get(`${BASE}/me/subnets/${id}`));
    expect(data.subnet).toMatchObject({ id, tokenId: Number(tokenId), status: "active" });
    const rows = await h().store.pool.query("SELECT kind, record_id FROM offchain.verified_transactions WHERE tx_hash = $1", [hash]);
    expect(rows.rows).toEqual([{ kind: "subnet-publish", record_id: id }]);
  });

  it("rejects an unknown hash, a reverted tx, a tx of another kind, a tx from another wallet and a reused tx", async () => {
    const id = await createDraft(alice, { subnetName: "Attempts" });
    const attempt = (txHash: string) => alice.post(`${BASE}/me/subnets/${id}/publish`, { subnetId: id, txHash });
    const expect400 = async (txHash: string, message: RegExp) => {
      const response = await attempt(txHash);
      expect(response.status).toBe(400);
      expect((await json(response)).error).toMatch(message);
    };

    await expect400(unknownHash, /not found/);
    // publishSubnet with an EOA as primary token reverts (InvalidPrimaryToken)
    const reverted = await h().sendReverted(curatorA, "SubnetManager", "publishSubnet", [curatorB.address]);
    await expect400(reverted, /reverted/);
    const otherKind = await h().write(curatorA, "CoreToken", "approve", [curatorB.address, 1n]);
    await expect400(otherKind.transactionHash, /not a call to SubnetManager/);
    const own = await publishedDraft(alice, curatorA, { subnetName: "For a setter" });
    const setter = await h().write(curatorA, "SubnetManager", "setAccessFeeCORE", [own.tokenId, 5n]);
    await expect400(setter.transactionHash, /no SubnetPublished event/);
    const bobs = await publishOnChain(curatorB);
    await expect400(bobs.hash, /not sent by the caller's wallet/);
    const used = await publishedDraft(alice, curatorA, { subnetName: "Used hash" });
    await expect400(used.hash, /already used/);
    const otherToken = await publishOnChain(curatorA, h().devnet.protocol.address("CoreToken"));
    await expect400(otherToken.hash, /does not match/);

    const { data } = await json(await alice.get(`${BASE}/me/subnets/${id}`));
    expect(data.subnet).toMatchObject({ status: "draft", tokenId: null });
  });

  it("rejects a body id that differs from the path, a malformed hash, and a second publish", async () => {
    const { id } = await publishedDraft(alice, curatorA, { subnetName: "Once" });
    const other = await createDraft(alice);
    const { hash } = await publishOnChain(curatorA);
    const mismatch = await alice.post(`${BASE}/me/subnets/${id}/publish`, { subnetId: other, txHash: hash });
    expect(mismatch.status).toBe(400);
    expect(await json(mismatch)).toEqual({ error: "subnetId must match the path" });
    for (const txHash of ["0x1234", "hello", 42, null]) {
      const response = await alice.post(`${BASE}/me/subnets/${other}/publish`, { subnetId: other, txHash });
      expect(response.status).toBe(400);
    }
    expect((await alice.post(`${BASE}/me/subnets/${other}/publish`, { subnetId: other })).status).toBe(400);
    const again = await alice.post(`${BASE}/me/subnets/${id}/publish`, { subnetId: id, txHash: hash });
    expect(again.status).toBe(400);
    expect(await json(again)).toEqual({ error: "Datanet is already published" });
    // the unused hash still works for the other draft
    expect((await alice.post(`${BASE}/me/subnets/${other}/publish`, { subnetId: other, txHash: hash })).status).toBe(200);
  });

  it("answers 400 'No wallet linked to this account' to a user without a wallet claim", async () => {
    const id = await createDraft(walletless);
    const response = await walletless.post(`${BASE}/me/subnets/${id}/publish`, { subnetId: id, txHash: unknownHash });
    expect(response.status).toBe(400);
    expect(await json(response)).toEqual({ error: "No wallet linked to this account" });
  });

  it("answers 503 and records nothing while the chain RPC is down", async () => {
    const id = await createDraft(alice);
    const { hash } = await publishOnChain(curatorA);
    const protocol = { ...h().runtime.chain().protocol, rpcUrl: "http://127.0.0.1:9" };
    const platform = createPlatformRuntime({
      env: {},
      config: h().runtime.config,
      chain: { protocol, client: createChainClient(protocol) },
      idp: await h().runtime.idp(),
    });
    const app = createPlatformApp({ ...h().deps, platform } as PlatformDeps);
    const response = await app.request(`${BASE}/me/subnets/${id}/publish`, {
      method: "POST",
      headers: { Cookie: alice.cookie, "Content-Type": "application/json" },
      body: JSON.stringify({ subnetId: id, txHash: hash }),
    });
    expect(response.status).toBe(503);
    expect(await json(response)).toEqual({ error: "Chain RPC unavailable" });
    // the hash is still unused
    expect((await alice.post(`${BASE}/me/subnets/${id}/publish`, { subnetId: id, txHash: hash })).status).toBe(200);
  });

  it("turns concurrent uses of one hash into one success and 400s", async () => {
    const ids = await Promise.all([createDraft(alice), createDraft(alice), createDraft(alice)]);
    const { hash } = await publishOnChain(curatorA);
    const statuses = await Promise.all(
      ids.map(async (id) => (await alice.post(`${BASE}/me/subnets/${id}/publish`, { subnetId: id, txHash: hash })).status),
    );
    expect(statuses.sort()).toEqual([200, 400, 400]);
  });
});

describe("fee and emission setters", () => {
  let subnet: { id: string; tokenId: bigint };

  beforeAll(async () => {
    subnet = await publishedDraft(alice, curatorA, { subnetName: "Fees and emissions" });
  });

  const setters = [
    ["access-fee/core", "accessFeeCORE", "setAccessFeeCORE"],
    ["pod-publishing-fee/core", "publishingFeeCORE", "setPublishingFeeCORE"],
    ["pod-republishing-fee/core", "republishingFeeCORE", "setRepublishingFeeCORE"],
    ["emissions-per-epoch/core", "emissionsPerEpochCORE", "setEmissionsPerEpochCORE"],
    ["emissions-per-epoch/primary-token", "emissionsPerEpochPrimaryToken", "setEmissionsPerEpochPrimaryToken"],
  ] as const;

  it.each(setters)("POST %s records a verified update with the exact amount", async (path, field, fn) => {
    const { transactionHash } = await h().write(curatorA, "SubnetManager", fn, [subnet.tokenId, CORE("12.5")]);
    const url = `${BASE}/me/subnets/${subnet.id}/${path}`;
    const mismatch = await alice.post(url, { subnetId: subnet.id, [field]: 12.4, txHash: transactionHash });
    expect(mismatch.status).toBe(400);
    expect((await json(mismatch)).error).toMatch(/does not match/);
    const response = await alice.post(url, { subnetId: subnet.id, [field]: 12.5, txHash: transactionHash });
    expect(response.status).toBe(200);
    expect(await json(response)).toEqual({ data: { success: true } });
    const again = await alice.post(url, { subnetId: subnet.id, [field]: 12.5, txHash: transactionHash });
    expect(again.status).toBe(400);
    expect(await json(again)).toEqual({ error: "Transaction already used" });
  });

  it("accepts core-token as an alias of core", async () => {
    const { transactionHash } = await h().write(curatorA, "SubnetManager", "setAccessFeeCORE", [subnet.tokenId, CORE(3)]);
    const response = await alice.post(`${BASE}/me/subnets/${subnet.id}/access-fee/core-token`, {
      subnetId: subnet.id,
      accessFeeCORE: 3,
      txHash: transactionHash,
    });
    expect(response.status).toBe(200);
  });

  it("shows the indexed values on the datanet, as whole tokens converted exactly", async () => {
    const values: Array<[string, string, bigint]> = [
      ["setAccessFeeCORE", "access-fee/core", CORE("0.1")],
      ["setEmissionsPerEpochCORE", "emissions-per-epoch/core", CORE("1000.000000000000000001")],
      ["setEmissionsPerEpochPrimaryToken", "emissions-per-epoch/primary-token", CORE("400")],
    ];
    for (const [fn] of values) {
      const value = values.find((v) => v[0] === fn)![2];
      await h().write(curatorA, "SubnetManager", fn, [subnet.tokenId, value]);
    }
    await h().caughtUp();
    const { data } = await json(await alice.get(`${BASE}/me/subnets/${subnet.id}`));
    expect(data.subnet.accessFeeCORE).toBe(0.1);
    // 1,000 CORE and 1 wei: a JSON number, as the spec has it, so the wei does not show
    expect(data.subnet.emissionsPerEpochCORE).toBe(1000);
    expect(data.subnet.emissionsPerEpochPrimaryToken).toBe(400);
  });

  it("rejects a tx for another parameter, another datanet, another wallet, a reverted one and one of another kind", async () => {
    const url = `${BASE}/me/subnets/${subnet.id}/pod-publishing-fee/core`;
    const post = (txHash: string, amount = 7) => alice.post(url, { subnetId: subnet.id, publishingFeeCORE: amount, txHash });
    const expect400 = async (txHash: string, message: RegExp) => {
      const response = await post(txHash);
      expect(response.status).toBe(400);
      expect((await json(response)).error).toMatch(message);
    };
    const wrongParam = await h().write(curatorA, "SubnetManager", "setRepublishingFeeCORE", [subnet.tokenId, CORE(7)]);
    await expect400(wrongParam.transactionHash, /does not match/);
    const otherSubnet = await publishedDraft(alice, curatorA, { subnetName: "Other" });
    const wrongSubnet = await h().write(curatorA, "SubnetManager", "setPublishingFeeCORE", [otherSubnet.tokenId, CORE(7)]);
    await expect400(wrongSubnet.transactionHash, /does not match/);
    const bobSubnet = await publishedDraft(bob, curatorB);
    const bobTx = await h().write(curatorB, "SubnetManager", "setPublishingFeeCORE", [bobSubnet.tokenId, CORE(7)]);
    await expect400(bobTx.transactionHash, /not sent by the caller's wallet/);
    const reverted = await h().sendReverted(curatorA, "SubnetManager", "setPublishingFeeCORE", [bobSubnet.tokenId, CORE(7)]);
    await expect400(reverted, /reverted/);
    const otherKind = await publishOnChain(curatorA);
    await expect400(otherKind.hash, /no SubnetParameterUpdated event/);
    await expect400(unknownHash, /not found/);
  });

  it("rejects bad amounts, a mismatched subnetId and an unpublished datanet", async () => {
    const { transactionHash } = await h().write(curatorA, "SubnetManager", "setAccessFeeCORE", [subnet.tokenId, 1n]);
    const url = `${BASE}/me/subnets/${subnet.id}/access-fee/core`;
    for (const accessFeeCORE of [-1, "5", null, 1e-19, undefined]) {
      const response = await alice.post(url, { subnetId: subnet.id, accessFeeCORE, txHash: transactionHash });
      expect(response.status).toBe(400);
    }
    const mismatch = await alice.post(url, { subnetId: "someone-else", accessFeeCORE: 1e-18, txHash: transactionHash });
    expect(await json(mismatch)).toEqual({ error: "subnetId must match the path" });
    // 1 wei is exactly 1e-18 tokens
    const exact = await alice.post(url, { subnetId: subnet.id, accessFeeCORE: 1e-18, txHash: transactionHash });
    expect(exact.status).toBe(200);

    const draft = await createDraft(alice);
    const response = await alice.post(`${BASE}/me/subnets/${draft}/access-fee/core`, {
      subnetId: draft,
      accessFeeCORE: 1,
      txHash: unknownHash,
    });
    expect(response.status).toBe(400);
    expect(await json(response)).toEqual({ error: "Datanet is not published yet" });
    const foreign = await bob.post(url, { subnetId: subnet.id, accessFeeCORE: 1, txHash: unknownHash });
    expect(foreign.status).toBe(404);
  });
});

describe("public datanets", () => {
  let published: Array<{ id: string; tokenId: bigint }>;

  beforeAll(async () => {
    published = [];
    for (const [name, description] of [
      ["Zebra sightings", "Field observations of zebras in the savanna"],
      ["Quantum chemistry", "Computed molecular energies and orbitals"],
      ["Savanna weather", "Rainfall and temperature series from weather stations"],
    ]) {
      published.push(await publishedDraft(bob, curatorB, { subnetName: name, subnetDescription: description }));
    }
    await createDraft(bob, { subnetName: "Zebra draft never published" });
    await h().caughtUp();
  });

  it("lists published datanets newest first with pagination metadata beside the array", async () => {
    const first = await json(await h().request(`${BASE}/public/subnets?limit=2`));
    expect(Object.keys(first.data)).toEqual(["subnets", "pagination"]);
    expect(first.data.subnets).toHaveLength(2);
    expect(first.data.subnets.every((s: { status: string }) => s.status === "active")).toBe(true);
    const tokenIds = first.data.subnets.map((s: { tokenId: number }) => s.tokenId);
    expect(tokenIds).toEqual([...tokenIds].sort((a, b) => b - a));
    const { total } = first.data.pagination;
    expect(first.data.pagination).toEqual({ page: 1, limit: 2, total, totalPages: Math.ceil(total / 2) });
    const everything = await json(await h().request(`${BASE}/public/subnets?limit=100`));
    expect(everything.data.subnets).toHaveLength(total);
    expect(everything.data.subnets.some((s: { subnetName: string }) => s.subnetName.includes("never published"))).toBe(false);
    const second = await json(await h().request(`${BASE}/public/subnets?limit=2&page=2`));
    expect(second.data.subnets[0].id).toBe(everything.data.subnets[2].id);
    const beyond = await json(await h().request(`${BASE}/public/subnets?page=1000`));
    expect(beyond.data.subnets).toEqual([]);
  });

  it("defaults to page 1 and limit 10", async () => {
    const { data } = await json(await h().request(`${BASE}/public/subnets`));
    expect(data.pagination).toMatchObject({ page: 1, limit: 10 });
    expect(data.subnets.length).toBeLessThanOrEqual(10);
  });

  it("searches name and description (every word, any case)", async () => {
    const zebra = await json(await h().request(`${BASE}/public/subnets?search=ZEBRA`));
    expect(zebra.data.subnets.map((s: { subnetName: string }) => s.subnetName)).toEqual(["Zebra sightings"]);
    const savanna = await json(await h().request(`${BASE}/public/subnets?search=savanna`));
    expect(savanna.data.subnets.map((s: { subnetName: string }) => s.subnetName).sort()).toEqual(["Savanna weather", "Zebra sightings"]);
    const both = await json(await h().request(`${BASE}/public/subnets?search=${encodeURIComponent("savanna rainfall")}`));
    expect(both.data.subnets.map((s: { subnetName: string }) => s.subnetName)).toEqual(["Savanna weather"]);
    const wildcard = await json(await h().request(`${BASE}/public/subnets?search=${encodeURIComponent("%_")}`));
    expect(wildcard.data.subnets).toEqual([]);
    expect(wildcard.data.pagination.total).toBe(0);
  });

  it("uses the trigram index for search, not a scan", async () => {
    const query = publicSearchQuery(h().store.db, "zebra savanna").toSQL();
    const client = await h().store.pool.connect();
    try {
      await client.query("BEGIN");
      await client.query("SET LOCAL enable_seqscan = off");
      const plan = await client.query(`EXPLAIN ${query.sql}`, query.params);
      const text = plan.rows.map((row: Record<string, string>) => Object.values(row)[0]).join("\n");
      expect(text).toMatch(/subnet_drafts_search_trgm_idx/);
      await client.query("ROLLBACK");
    } finally {
      client.release();
    }
  });

  it.each([
    ["page=0"],
    ["page=-1"],
    ["page=abc"],
    ["limit=0"],
    ["limit=101"],
    ["limit=1.5"],
    [`search=${"x".repeat(201)}`],
    ["search=a%00b"],
  ])("rejects %s with 400", async (query) => {
    const response = await h().request(`${BASE}/public/subnets?${query}`);
    expect(response.status).toBe(400);
    expect(await json(response)).toEqual({ error: expect.any(String) });
  });

  it("shows one published datanet by id or tokenId, 404 for drafts and unknown ids", async () => {
    const [one] = published;
    const byId = await json(await h().request(`${BASE}/public/subnets/${one!.id}`));
    expect(byId.data.subnet).toMatchObject({ id: one!.id, tokenId: Number(one!.tokenId), status: "active" });
    const byToken = await json(await h().request(`${BASE}/public/subnets/${one!.tokenId}`));
    expect(byToken.data.subnet.id).toBe(one!.id);
    const draft = await createDraft(bob);
    for (const id of [draft, "nope", "99999", "00000000-0000-4000-8000-000000000000"]) {
      const response = await h().request(`${BASE}/public/subnets/${id}`);
      expect(response.status).toBe(404);
      expect(await json(response)).toEqual({ error: "Datanet not found" });
    }
  });
});

describe("OpenAPI document", () => {
  it("lists every datanet route with its operations", async () => {
    const doc = await json(await h().request("/openapi.json"));
    const paths = doc.paths as Record<string, Record<string, unknown>>;
    for (const [path, method] of [
      ["/api/v1/me/subnets", "get"],
      ["/api/v1/me/subnets", "post"],
      ["/api/v1/me/subnets/{id}", "get"],
      ["/api/v1/me/subnets/{id}/publish", "post"],
      ["/api/v1/me/subnets/{id}/access-fee/core", "post"],
      ["/api/v1/me/subnets/{id}/pod-publishing-fee/core", "post"],
      ["/api/v1/me/subnets/{id}/pod-republishing-fee/core", "post"],
      ["/api/v1/me/subnets/{id}/emissions-per-epoch/core", "post"],
      ["/api/v1/me/subnets/{id}/emissions-per-epoch/primary-token", "post"],
      ["/api/v1/public/subnets", "get"],
      ["/api/v1/public/subnets/{id}", "get"],
    ] as const) {
      expect(paths[path]?.[method], `${method} ${path}`).toBeDefined();
    }
    expect(doc.components.securitySchemes.idpCookie).toMatchObject({ type: "apiKey", in: "cookie", name: "idp-token" });
  });
});
