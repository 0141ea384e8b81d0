/**
 * The indexer finishes, exactly, whatever the node does (issue 36): a short Base-shaped chain
 * (the seeded market's events, then long quiet stretches and blocks of unrelated transfers) is
 * indexed once on loopback, then through the node simulator (bench/rpc-simulator.ts) under each
 * fault profile and under combinations of them. Every indexed table must equal the clean index (row
 * counts and checksums: no gap, no duplicate), the indexer must never exit, and the profiles that
 * fail requests must show in Ponder's own metrics (`ponder_rpc_request_error_total`).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseEther } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compareChecksums, tableChecksums, type TableChecksum } from "../../bench/checksum";
import { startRpcSimulator, type RpcSimulator, type RpcSimulatorProfile } from "../../bench/rpc-simulator";
import { writeDeployment, type Deployment } from "../../chain/deployments";
import type { LocalChain } from "../../devnet/anvil";
import { roleAccount } from "../../devnet/accounts";
import { startIndexer, type Indexer } from "../../ops/indexer";
import { startDevnet, type Devnet } from "../support/chain";
import { useFreshDatabase, type FreshDatabase } from "../support/database";

/** Caps of ranges, results and batches, with a node of the pool behind. */
const CAPS_AND_LAG: Partial<RpcSimulatorProfile> = {
  maxBlockRange: 60,
  rangeErrorStyle: "quicknode",
  maxResults: 12,
  resultErrorStyle: "geth",
  lagBlocks: 2,
  lagShare: 0.2,
  maxBatchSize: 3,
};
/** Rate limits, failures, dropped connections and an uneven round trip. */
const LIMITS_AND_FAILURES: Partial<RpcSimulatorProfile> = {
  requestsPerSecond: 60,
  rateLimitCountsCalls: true,
  retryAfterSeconds: 1,
  status5xxShare: 0.05,
  timeoutShare: 0.01,
  timeoutHoldMs: 300,
  latencyMs: 5,
  jitterMs: 10,
};

/** What hosted Base endpoints and busy self-hosted nodes do (values scaled to a short chain). */
const PROFILES: Record<string, Partial<RpcSimulatorProfile>> = {
  // a block-range cap far below Ponder's first interval, and a result cap, each with a provider's wording
  "range and result caps": { maxBlockRange: 50, rangeErrorStyle: "alchemy", maxResults: 10, resultErrorStyle: "infura" },
  "rate limit (429 per call, no Retry-After)": { requestsPerSecond: 40, rateLimitCountsCalls: true },
  "5xx and dropped connections": { status5xxShare: 0.1, timeoutShare: 0.02, timeoutHoldMs: 300 },
  "lagging node": { lagBlocks: 3, lagShare: 0.3, lagAnswer: "header not found" },
  "batch cap": { maxBatchSize: 2 },
  // Alchemy names the range that works, here a single block: Ponder took [b, b] for a chunk size of
  // 0 blocks and looped until its heap was full (patched: at least one block)
  "one block per eth_getLogs (Alchemy's wording)": { maxBlockRange: 1, rangeErrorStyle: "alchemy" },
  "caps, lag and a batch cap together": CAPS_AND_LAG,
  "429 with Retry-After, 5xx, drops and jitter together": LIMITS_AND_FAILURES,
  "every fault at once": { ...CAPS_AND_LAG, ...LIMITS_AND_FAILURES },
};

/** A profile that only lags (the others inject faults Ponder counts; a lagging answer is no error). */
const onlyLags = (profile: Partial<RpcSimulatorProfile>) => Object.keys(profile).every((key) => key.startsWith("lag"));

let devnet: Devnet;
let anvil: LocalChain;
let deployment: Deployment;
let database: FreshDatabase;
let head: bigint;
let clean: TableChecksum[];
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "rpc-node-indexer-"));
const running: Indexer[] = [];

beforeAll(async () => {
  [devnet, database] = await Promise.all([startDevnet({ seed: true }), useFreshDatabase()]);
  anvil = devnet.chain;
  deployment = devnet.deployment;
  // Base-shaped: the seeded market (every kind of protocol event, four epochs), then long quiet
  // stretches with blocks of unrelated transfers between them
  const p = devnet.protocol;
  const from = roleAccount("buyer").address;
  const to = roleAccount("treasury").address;
  for (let stretch = 0; stretch < 4; stretch++) {
    await p.testClient.mine({ blocks: 60 });
    for (let i = 0; i < 10; i++) await p.testClient.sendUnsignedTransaction({ from, to, value: 1n });
  }
  await p.testClient.mine({ blocks: 40 });
  head = await p.publicClient.getBlockNumber({ cacheTime: 0 });
  const index = await indexThrough(anvil.rpcUrl, "rpc_clean");
  clean = await tableChecksums(database.url, "rpc_clean");
  await index.stop();
}, 300_000);

afterAll(async () => {
  await Promise.all(running.map((indexer) => indexer.stop().catch(() => undefined)));
  await devnet?.chain.stop();
  await database?.drop();
  fs.rmSync(tmp, { recursive: true, force: true });
});

/** Indexes the chain through `rpcUrl` into `schema`, up to the generated head. */
async function indexThrough(rpcUrl: string, schema: string, until: bigint = head, logLevel: "warn" | "info" = "warn"): Promise<Indexer> {
  const deploymentsFile = path.join(tmp, "deployments.json");
  writeDeployment({ ...deployment, rpcUrl: anvil.rpcUrl }, deploymentsFile);
  const indexer = await startIndexer({
    databaseUrl: database.url,
    schema,
    viewsSchema: `${schema}_views`,
    rpcUrl,
    deploymentsFile,
    logLevel,
    logFile: path.join(tmp, `${schema}.log`),
  });
  running.push(indexer);
  let exited: string | undefined;
  void indexer.exited.then(({ code, signal }) => (exited = `exited (${code ?? signal})`));
  await indexer.waitUntilReady(240_000);
  await indexer.waitForBlock(until, 120_000);
  expect(exited).toBeUndefined();
  return indexer;
}

/** Ponder's count of failed RPC requests (its /metrics). */
async function rpcErrors(indexer: Indexer): Promise<number> {
  const text = await (await fetch(`${indexer.url}/metrics`)).text();
  return text
    .split("\n")
    .filter((line) => line.startsWith("ponder_rpc_request_error_total"))
    .reduce((sum, line) => sum + Number(line.split(" ").pop()), 0);
}

describe("the indexer through a modelled remote node", () => {
  it("the clean index holds the chain's events", () => {
    expect(clean.find((t) => t.table === "event_log")?.rows).toBeGreaterThan(30);
    expect(clean.find((t) => t.table === "vote")?.rows).toBeGreaterThan(5);
  });

  it.each(Object.entries(PROFILES))("%s: the same rows as on loopback, the process never exits", { timeout: 300_000 }, async (name, profile) => {
    await expectSameRowsThrough(name, profile);
  });

  // A result cap that names no range (geth's wording) makes Ponder halve the range of the failing
  // call, then grow it 5% per interval; rounded, 5% of fewer than 10 blocks is nothing, so after a
  // dense stretch it asked block by block for the rest of the backfill (patched: at least one block
  // more). The cap here is the most logs one block holds for one contract: every block fits alone.
  it("a result cap as small as one block's logs, no range named: the same rows, fewer eth_getLogs than blocks", { timeout: 300_000 }, async () => {
    const logs = await devnet.protocol.publicClient.getLogs({
      address: Object.values(deployment.contracts).map((contract) => contract.address),
      fromBlock: 0n,
      toBlock: head,
    });
    const perBlock = new Map<string, number>();
    for (const log of logs) {
      const key = `${log.address}:${log.blockNumber}`;
      perBlock.set(key, (perBlock.get(key) ?? 0) + 1);
    }
    const maxResults = Math.max(...perBlock.values());
    const node = await expectSameRowsThrough("one block's logs", { maxResults, resultErrorStyle: "geth" });
    expect(node.stats.resultErrors).toBeGreaterThan(0);
    expect(node.stats.byMethod.eth_getLogs).toBeLessThan(Number(head));
  });
});

// Last, as it extends the chain: the live sync through a faulty node while the chain reorganizes.
describe("reorgs while following through a faulty node", () => {
  it("the follower ends with the rows of a clean index of the final chain", { timeout: 300_000 }, async () => {
    const node = await startRpcSimulator({
      upstream: anvil.rpcUrl,
      seed: 37,
      maxBlockRange: 60,
      rangeErrorStyle: "quicknode",
      lagBlocks: 2,
      lagShare: 0.2,
      lagAnswer: "header not found",
      status5xxShare: 0.05,
      timeoutShare: 0.01,
      timeoutHoldMs: 300,
      maxBatchSize: 3,
    });
    try {
      const follower = await indexThrough(node.url, "rpc_follow_reorgs", head, "info");
      const p = devnet.protocol;
      const latest = () => p.publicClient.getBlockNumber({ cacheTime: 0 });
      for (let round = 1; round <= 3; round++) {
        // a branch with a vote, indexed, then replaced by a longer branch with another vote
        const snapshot = await p.testClient.snapshot();
        await p.write(roleAccount("voter2"), "PodManager", "vote", [1n, parseEther(String(round)), true]);
        await p.testClient.mine({ blocks: round });
        await follower.waitForBlock(await latest(), 120_000);
        await p.testClient.revert({ id: snapshot });
        await p.write(roleAccount("voter1"), "PodManager", "vote", [1n, parseEther(String(round + 3)), false]);
        await p.testClient.mine({ blocks: round + 2 });
      }
      const final = await latest();
      await follower.waitForBlock(final, 120_000);
      // each branch was indexed and then reorged away (Ponder 0.16 never counts its reorg metric)
      const reorged = fs.readFileSync(path.join(tmp, "rpc_follow_reorgs.log"), "utf8").match(/Reorged block/g) ?? [];
      expect(reorged.length).toBeGreaterThanOrEqual(3);
      const reference = await indexThrough(anvil.rpcUrl, "rpc_follow_clean", final);
      const [expected, actual] = await Promise.all([
        tableChecksums(database.url, "rpc_follow_clean"),
        tableChecksums(database.url, "rpc_follow_reorgs"),
      ]);
      expect(expected.find((t) => t.table === "vote")?.rows).toBeGreaterThan(clean.find((t) => t.table === "vote")?.rows ?? 0);
      expect(compareChecksums(expected, actual)).toEqual([]);
      expect(node.stats.status5xx + node.stats.timeouts + node.stats.lagged).toBeGreaterThan(0);
      await Promise.all([follower.stop(), reference.stop()]);
    } finally {
      await node.close();
    }
  });
});

/** Indexes the chain through a simulator with `profile`: the clean index's rows, its faults met. */
async function expectSameRowsThrough(name: string, profile: Partial<RpcSimulatorProfile>): Promise<RpcSimulator> {
  const node: RpcSimulator = await startRpcSimulator({ upstream: anvil.rpcUrl, seed: 36, ...profile });
  const schema = `rpc_${name.replace(/[^a-z0-9]+/gi, "_").toLowerCase()}`.slice(0, 30);
  try {
    const indexer = await indexThrough(node.url, schema);
    expect(compareChecksums(clean, await tableChecksums(database.url, schema))).toEqual([]);
    const injected =
      node.stats.rangeErrors + node.stats.resultErrors + node.stats.rateLimited + node.stats.status5xx + node.stats.timeouts + node.stats.batchesRefused;
    // every profile met the indexer: its faults were injected, and Ponder counted the failed requests
    if (onlyLags(profile)) expect(node.stats.lagged).toBeGreaterThan(0);
    else {
      expect(injected).toBeGreaterThan(0);
      expect(await rpcErrors(indexer)).toBeGreaterThan(0);
    }
    await indexer.stop();
    return node;
  } finally {
    await node.close();
  }
}
