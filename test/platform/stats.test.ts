/**
 * Stats routes (spec §4.1) on the seeded devnet, through the real platform app and the indexer.
 * Every expected figure is recomputed here from the contracts' events and views.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { formatUnits, type Abi, type PublicClient } from "viem";
import { beforeAll, describe, expect, it } from "vitest";
import { localStatsApiKey } from "../../api/http/auth/stats-key";
import { createPlatformApp } from "../../api/platform/app";
import { loadPlatformConfig } from "../../api/platform/config";
import { createPlatformRuntime } from "../../api/platform/app-services";
import { feedPriceSource, fixedPriceSource, usdValue } from "../../api/platform/services/price";
import { loadConfig } from "../../api/config";
import { roleAccount } from "../../devnet/accounts";
import { BASE, json, STATS_KEY, subnetDraftBody, usePlatformHarness, type Session } from "./harness";

const PRICE = "0.0725";
const h = usePlatformHarness({ seed: true, indexer: true, platformEnv: { CORE_PRICE_USD: PRICE } });
const curatorA = roleAccount("curatorA");
const tokens = (raw: bigint) => Number(formatUnits(raw, 18));
const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });

type Log = { args: Record<string, any>; transactionHash: `0x${string}`; blockNumber: bigint };

let alice: Session;
/** The seed's first two datanets, linked to drafts through their publish transactions. */
let research: { id: string; tokenId: bigint };
let datasets: { id: string; tokenId: bigint };

async function events(contract: "SubnetManager" | "PodManager" | "VeCore", eventName: string): Promise<Log[]> {
  const p = h().devnet.protocol;
  return (await p.publicClient.getContractEvents({
    address: p.address(contract),
    abi: p.abis[contract] as Abi,
    eventName,
    fromBlock: 0n,
    toBlock: "latest",
  } as never)) as unknown as Log[];
}

beforeAll(async () => {
  alice = await h().signIn("alice", curatorA, "alice");
  await h().signIn("bob").then((bob) => bob.get(`${BASE}/me/subnets`)); // a platform user without a wallet
  const published = await events("SubnetManager", "SubnetPublished");
  const link = async (tokenId: bigint, name: string, symbol: string) => {
    const log = published.find((l) => l.args.subnetId === tokenId)!;
    const created = await alice.post(
      `${BASE}/me/subnets`,
      subnetDraftBody({ subnetName: name, nativeTokenSymbol: symbol }, log.args.primaryToken),
    );
    const { id } = (await json(created)).data;
    // the seed published datanet 1 from curatorA: the same wallet links it to its metadata
    const response = await alice.post(`${BASE}/me/subnets/${id}/publish`, { subnetId: id, txHash: log.transactionHash });
    return { response, id, tokenId };
  };
  const first = await link(1n, "Research", "DATA");
  expect(first.response.status).toBe(200);
  research = first;
  // datanet 2 belongs to curatorB: alice cannot link it
  const second = await link(2n, "Datasets", "DATA");
  expect(second.response.status).toBe(400);
  datasets = second;
  await h().caughtUp();
});

describe("GET /stats and /stats/summary", () => {
  it("computes the network summary from indexed events and off-chain rows", async () => {
    const response = await h().request(`${BASE}/stats`);
    expect(response.status).toBe(200);
    const body = await json(response);
    expect(Object.keys(body)).toEqual(["data"]);
    const stats = body.data;

    const p = h().devnet.protocol;
    const core = p.address("CoreToken").toLowerCase();
    const fees = (await events("SubnetManager", "FeeCollected")).filter((l) => l.args.token.toLowerCase() === core);
    const sum = (field: string) => fees.reduce((acc, l) => acc + (l.args[field] as bigint), 0n);

    const lockCount = Number(await p.read<bigint>("VeCore", "nextLockupId")) - 1;
    const locks = await Promise.all(
      Array.from({ length: lockCount }, async (_, i) => {
        const id = BigInt(i + 1);
        const [amount] = await p.read<[bigint, bigint, bigint, bigint]>("VeCore", "lockupData", [id]);
        const owner = (await p.read<string>("VeCore", "ownerOf", [id])).toLowerCase();
        const governance = await p.read<boolean>("VeCore", "isGovernanceAccount", [owner]);
        return { amount, owner, governance };
      }),
    );
    const open = locks.filter((l) => l.amount > 0n);
    const total = open.reduce((acc, l) => acc + l.amount, 0n);
    const governance = open.filter((l) => l.governance).reduce((acc, l) => acc + l.amount, 0n);
    const holders = new Set(open.map((l) => l.owner));
    const users = await h().store.pool.query<{ wallet_address: string | null }>("SELECT wallet_address FROM offchain.users");
    const linked = new Set(users.rows.map((u) => u.wallet_address));
    const head = await p.publicClient.getBlock();

    expect(stats).toEqual({
      totalPods: Number(await p.read<bigint>("PodManager", "nextPodId")) - 1,
      totalActiveSubnets: 3,
      totalSubnetFees: tokens(sum("amount")),
      totalSubnetFeesBurnt: tokens(sum("burnt")),
      totalSubnetFeesAccumulatedToPerformancePool: tokens(sum("toPerformancePool")),
      totalSubnetFeesLocked: tokens(sum("locked")),
      epochLengthSeconds: 172_800,
      governanceLocked: tokens(governance),
      communityLocked: tokens(total - governance),
      lastUpdatedAt: new Date(Number(head.timestamp) * 1000).toISOString(),
      corePriceUSD: 0.0725,
      totalCoreLocked: tokens(total),
      totalUsers: users.rowCount! + [...holders].filter((owner) => !linked.has(owner)).length,
      totalLocks: open.length,
      averageLockedPerUser: tokens(total / BigInt(holders.size)),
      // the seed's three datanets; only research has metadata here, the others go by tokenId
      activeSubnetIds: [{ id: research.id }, { id: "2" }, { id: "3" }],
    });
    // the seed's numbers, for the reader
    expect(stats).toMatchObject({ totalPods: 4, governanceLocked: 6000, communityLocked: 3700, totalLocks: 4, averageLockedPerUser: 2425 });
    expect(stats.totalSubnetFees).toBe(stats.totalSubnetFeesBurnt + stats.totalSubnetFeesAccumulatedToPerformancePool + stats.totalSubnetFeesLocked);
  });

  it("keeps /stats public and protects /stats/summary with the stats key", async () => {
    for (const headers of [{}, bearer("wrong"), { Authorization: STATS_KEY }, { Authorization: `Basic ${STATS_KEY}` }, bearer("")]) {
      const response = await h().request(`${BASE}/stats/summary`, { headers });
      expect(response.status).toBe(401);
      expect(await json(response)).toEqual({ error: "Unauthorized" });
    }
    const summary = await h().request(`${BASE}/stats/summary`, { headers: bearer(STATS_KEY) });
    expect(summary.status).toBe(200);
    const open = await json(await h().request(`${BASE}/stats`));
    expect(await json(summary)).toEqual(open);
  });

  it("protects every path below /stats/ (the documented matcher quirk), not /stats itself", async () => {
    expect((await h().request(`${BASE}/stats`)).status).toBe(200);
    expect((await h().request(`${BASE}/stats/anything`)).status).toBe(401);
    expect((await h().request(`${BASE}/stats/anything`, { headers: bearer(STATS_KEY) })).status).toBe(404);
  });

  it("answers 503 while the indexer's views are missing", async () => {
    const deps = { ...h().deps, config: loadConfig({ LOG_LEVEL: "silent", PONDER_VIEWS_SCHEMA: "no_views_here" }) };
    const app = createPlatformApp(deps);
    const response = await app.request(`${BASE}/stats`);
    expect(response.status).toBe(503);
    expect(await json(response)).toEqual({ error: "Indexer not ready" });
  });
});

describe("GET /stats/subnets/{id}", () => {
  it("computes one datanet's figures", async () => {
    const response = await h().request(`${BASE}/stats/subnets/${research.id}`, { headers: bearer(STATS_KEY) });
    expect(response.status).toBe(200);
    const { data } = await json(response);

    const p = h().devnet.protocol;
    const id = research.tokenId;
    const core = p.address("CoreToken").toLowerCase();
    const votes = (await events("PodManager", "Voted")).filter((l) => l.args.subnetId === id);
    const volume = (up: boolean) => votes.filter((l) => l.args.upVote === up).reduce((acc, l) => acc + (l.args.votes as bigint), 0n);
    const epoch = BigInt(await p.currentEpoch());
    const podCount = Number(await p.read<bigint>("PodManager", "nextPodId")) - 1;
    let active = 0;
    for (let pod = 1n; pod <= BigInt(podCount); pod++) {
      const inSubnet = (await p.read<bigint>("PodManager", "podSubnet", [pod])) === id;
      if (inSubnet && (await p.read<boolean>("PodManager", "podValidAt", [pod, epoch]))) active++;
    }
    const access = new Set(
      (await events("SubnetManager", "SubnetAccessGranted")).filter((l) => l.args.subnetId === id).map((l) => l.args.account),
    );
    const fees = (await events("SubnetManager", "FeeCollected")).filter(
      (l) => l.args.subnetId === id && l.args.token.toLowerCase() === core,
    );
    const feesOf = (kind: number) => fees.filter((l) => Number(l.args.kind) === kind).reduce((acc, l) => acc + (l.args.amount as bigint), 0n);
    const seeds = (await events("SubnetManager", "EmissionPoolSeeded")).filter(
      (l) => l.args.subnetId === id && l.args.token.toLowerCase() === core,
    );
    const subnet = await p.read<Record<string, bigint>>("SubnetManager", "getSubnet", [id]);
    const [emissionsCore, emissionsPrimary] = await p.read<[bigint, bigint]>("SubnetManager", "emissionsPerEpochAt", [id, epoch]);
    const publishedLog = (await events("SubnetManager", "SubnetPublished")).find((l) => l.args.subnetId === id)!;
    const publishedBlock = await p.publicClient.getBlock({ blockNumber: publishedLog.blockNumber });
    const price = { usd: 0.0725, scaled: 72_500_000_000_000_000n };

    expect(data).toEqual({
      id: research.id,
      tokenId: 1,
      subnetName: "Research",
      subnetDescription: "Peer-reviewed research papers and their datasets",
      cumulativeUpVotes: tokens(volume(true)),
      cumulativeDownVotes: tokens(volume(false)),
      createdAt: new Date(Number(publishedBlock.timestamp) * 1000).toISOString(),
      emissionsPerEpochCORE: tokens(emissionsCore),
      emissionsPerEpochPrimaryToken: tokens(emissionsPrimary),
      primaryTokenSymbol: "DATA",
      activePodCount: active,
      userAccessCount: access.size,
      coreSeedsBySubnetOwnerAmount: tokens(seeds.reduce((acc, l) => acc + (l.args.amount as bigint), 0n)),
      publishingFeeCORE: tokens(subnet.publishingFeeCORE!),
      estimatedTotalPublishingFeeCollectedUSD: usdValue(feesOf(2), price),
      accessFeeCORE: tokens(subnet.accessFeeCORE!),
      estimatedTotalAccessFeeCollectedUSD: usdValue(feesOf(1), price),
    });
    // the seed's numbers, for the reader: 2 CORE mints of 5 and 3 accesses of 10, at 0.0725 USD
    expect(data).toMatchObject({ activePodCount: 2, userAccessCount: 3, coreSeedsBySubnetOwnerAmount: 20_000 });
    expect(data.estimatedTotalPublishingFeeCollectedUSD).toBe(0.725);
    expect(data.estimatedTotalAccessFeeCollectedUSD).toBe(2.175);
    const byToken = await json(await h().request(`${BASE}/stats/subnets/1`, { headers: bearer(STATS_KEY) }));
    expect(byToken.data).toEqual(data);
  });

  it("answers 401 without the key (before anything else) and 404 for drafts, chain-only datanets and garbage", async () => {
    for (const id of [research.id, "nope"]) {
      const response = await h().request(`${BASE}/stats/subnets/${id}`);
      expect(response.status).toBe(401);
      expect(await json(response)).toEqual({ error: "Unauthorized" });
    }
    const draft = datasets.id; // its publish was refused: still a draft
    for (const id of [draft, "2", "3", "999", "garbage", "00000000-0000-4000-8000-000000000000", "-1"]) {
      const response = await h().request(`${BASE}/stats/subnets/${id}`, { headers: bearer(STATS_KEY) });
      expect(response.status).toBe(404);
      expect(await json(response)).toEqual({ error: "Datanet not found" });
    }
  });

  it("lists the stats routes in the OpenAPI document", async () => {
    const doc = await json(await h().request("/openapi.json"));
    expect(doc.paths["/api/v1/stats"].get).toBeDefined();
    expect(doc.paths["/api/v1/stats/summary"].get.security).toEqual([{ statsKey: [] }]);
    expect(doc.paths["/api/v1/stats/subnets/{id}"].get.security).toEqual([{ statsKey: [] }]);
    expect(doc.components.securitySchemes.statsKey).toMatchObject({ type: "http", scheme: "bearer" });
  });
});

describe("price sources", () => {
  it("a fixed price keeps the configured decimal exactly", async () => {
    const price = await fixedPriceSource("0.05").coreUsd();
    expect(price).toEqual({ usd: 0.05, scaled: 50_000_000_000_000_000n });
    // 3 CORE at 0.05 USD, computed in integers: exactly 0.15 (not 0.15000000000000002)
    expect(usdValue(3_000_000_000_000_000_000n, price)).toBe(0.15);
  });

  function fakeFeed(answers: Array<{ answer: bigint; updatedAt: number } | Error>) {
    let reads = 0;
    const client = {
      readContract: async ({ functionName }: { functionName: string }) => {
        if (functionName === "decimals") return 8;
        const next = answers[Math.min(reads++, answers.length - 1)]!;
        if (next instanceof Error) throw next;
        return [1n, next.answer, 0n, BigInt(next.updatedAt), 1n];
      },
    } as unknown as PublicClient;
    return { client, reads: () => reads };
  }

  it("a Chainlink-style feed is read with its decimals, cached, and refused when stale", async () => {
    let now = 1_000_000_000_000;
    const seconds = () => Math.floor(now / 1000);
    const feed = fakeFeed([
      { answer: 5_000_000n, updatedAt: seconds() },
      new Error("rpc down"),
      { answer: 7_000_000n, updatedAt: seconds() - 100_000 },
      { answer: 9_000_000n, updatedAt: seconds() + 120 },
    ]);
    const source = feedPriceSource(() => feed.client, {
      address: "0x0000000000000000000000000000000000000abc",
      cacheSeconds: 60,
      maxAgeSeconds: 3600,
      now: () => now,
    });
    expect(await source.coreUsd()).toEqual({ usd: 0.05, scaled: 50_000_000_000_000_000n });
    expect(await source.coreUsd()).toMatchObject({ usd: 0.05 });
    expect(feed.reads()).toBe(1); // cached
    now += 61_000;
    expect((await source.coreUsd()).usd).toBe(0.05); // RPC down: the last good answer
    now += 61_000;
    expect((await source.coreUsd()).usd).toBe(0.05); // stale answer refused: the last good answer
    now += 61_000;
    expect((await source.coreUsd()).usd).toBe(0.09);
  });

  it("a feed that never answered well makes the stats answer 503", async () => {
    const feed = fakeFeed([{ answer: 0n, updatedAt: Math.floor(Date.now() / 1000) }]);
    const source = feedPriceSource(() => feed.client, {
      address: "0x0000000000000000000000000000000000000abc",
      cacheSeconds: 60,
      maxAgeSeconds: 3600,
    });
    await expect(source.coreUsd()).rejects.toMatchObject({ status: 503, message: "Price feed unavailable" });
  });
});

describe("stats key on the local setup", () => {
  it("generates a key once when STATS_API_KEYS is unset on a local chain, and reuses it", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "stats-key-"));
    try {
      const file = path.join(dir, "key");
      const context = () =>
        createPlatformRuntime({
          env: {},
          config: loadPlatformConfig({ STATS_API_KEY_FILE: file }),
          chain: h().runtime.chain(),
        });
      const [key] = context().statsApiKeys();
      expect(key).toMatch(/^[0-9a-f]{64}$/);
      expect(context().statsApiKeys()).toEqual([key]);
      expect(localStatsApiKey(file)).toEqual({ key, created: false });
      expect(createPlatformRuntime({ env: {}, config: loadPlatformConfig({ STATS_API_KEYS: " a , b ,," }) }).statsApiKeys()).toEqual([
        "a",
        "b",
      ]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
