/**
 * The Ponder patch (patches/ponder+0.16.10.patch, applied by `npm install`): the historical
 * sync fetches the blocks with logs in JSON-RPC batches and writes them one INSERT per table.
 * On a generated chain, behind a proxy that counts the HTTP requests to anvil:
 * - batched: far fewer HTTP requests for blocks than blocks with logs;
 * - the same rows as Ponder's own per-block path (PONDER_PATCH_BATCH_BLOCKS=0);
 * - a node that refuses batches: the sync falls back to single requests, same rows again.
 * Without the patch the first assertion fails (one request per block with logs).
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startBenchAnvil } from "../../bench/anvil";
import { generateChain } from "../../bench/chain-gen";
import { compareChecksums, tableChecksums, type TableChecksum } from "../../bench/checksum";
import type { Deployment } from "../../chain/deployments";
import type { LocalChain } from "../../devnet/anvil";
import { deployProtocol } from "../../devnet/deploy";
import { seedDemo } from "../../devnet/seed";
import { clearSyncCache } from "../../ops/indexer";
import { useFreshDatabase, type FreshDatabase } from "../support/database";
import { removeIndexerTestFiles, startIndexerFor } from "./helpers";

/**
 * Blocks counted: up to the head minus this margin. Ponder backfills to the finalized block
 * (head - 30 on Base) and fetches the newer ones block by block in its live phase (unpatched).
 */
const LIVE_MARGIN = 40n;

type Counts = {
  /** HTTP requests that carried at least one eth_getBlockByNumber for a historical block. */
  blockHttpRequests: number;
  /** eth_getBlockByNumber calls for historical blocks, single or inside batches. */
  blockCalls: number;
  /** Batches (JSON arrays) received. */
  batches: number;
};

type RpcCall = { method?: string; params?: unknown[] };

/** An HTTP JSON-RPC proxy in front of anvil that counts block requests; `refuseBatches` answers arrays with an error. */
async function startCountingProxy(target: string, lastCounted: () => bigint) {
  const counts: Counts = { blockHttpRequests: 0, blockCalls: 0, batches: 0 };
  let refuseBatches = false;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", async () => {
      const body = Buffer.concat(chunks).toString("utf8");
      try {
        const parsed = JSON.parse(body) as RpcCall | RpcCall[];
        const calls = Array.isArray(parsed) ? parsed : [parsed];
        const blockCalls = calls.filter(
          (c) =>
            c.method === "eth_getBlockByNumber" &&
            typeof c.params?.[0] === "string" &&
            (c.params[0] as string).startsWith("0x") &&
            BigInt(c.params[0] as string) <= lastCounted(),
        ).length;
        if (Array.isArray(parsed)) counts.batches += 1;
        if (Array.isArray(parsed) && refuseBatches) {
          res.writeHead(200, { "content-type": "application/json" });
          res.end(JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32600, message: "batch requests are not supported" } }));
          return;
        }
        if (blockCalls > 0) {
          counts.blockHttpRequests += 1;
          counts.blockCalls += blockCalls;
        }
        const upstream = await fetch(target, { method: "POST", headers: { "content-type": "application/json" }, body });
        res.writeHead(upstream.status, { "content-type": "application/json" });
        res.end(await upstream.text());
      } catch (error) {
        res.writeHead(502);
        res.end(String(error));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    counts,
    reset() {
      Object.assign(counts, { blockHttpRequests: 0, blockCalls: 0, batches: 0 });
    },
    setRefuseBatches(value: boolean) {
      refuseBatches = value;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

let chain: LocalChain;
let deployment: Deployment;
let database: FreshDatabase;
let proxy: Awaited<ReturnType<typeof startCountingProxy>>;
let head = 0n;

/** One cold backfill through the proxy into `schema`; returns what the proxy counted and the checksums. */
async function backfill(schema: string, env: Record<string, string> = {}): Promise<{ counts: Counts; checksums: TableChecksum[] }> {
  await clearSyncCache(database.url);
  proxy.reset();
  const { indexer } = await startIndexerFor(
    { ...deployment, rpcUrl: proxy.url },
    { databaseUrl: database.url, schema, viewsSchema: `${schema}_views`, rpcUrl: proxy.url, env },
  );
  try {
    await indexer.waitUntilReady(180_000);
    await indexer.waitForBlock(head, 60_000);
  } finally {
    await indexer.stop();
  }
  const counts = { ...proxy.counts };
  console.info(`${schema}: ${counts.blockCalls} historical blocks in ${counts.blockHttpRequests} HTTP requests (${counts.batches} batches)`);
  return { counts, checksums: await tableChecksums(database.url, schema) };
}

beforeAll(async () => {
  [chain, database] = await Promise.all([startBenchAnvil(), useFreshDatabase()]);
  deployment = await deployProtocol(chain.rpcUrl);
  await seedDemo(chain.rpcUrl, deployment);
  const generated = await generateChain(chain.rpcUrl, deployment, { events: 1200, shape: "dense" });
  head = generated.head;
  proxy = await startCountingProxy(chain.rpcUrl, () => head - LIVE_MARGIN);
});

afterAll(async () => {
  await proxy?.close();
  await chain?.stop();
  await database?.drop();
  removeIndexerTestFiles();
});

describe("the patched historical sync (JSON-RPC batches of blocks, one INSERT per table)", () => {
  let perBlock: { counts: Counts; checksums: TableChecksum[] };

  it("Ponder's per-block path (PONDER_PATCH_BATCH_BLOCKS=0) asks for each block with logs on its own", async () => {
    perBlock = await backfill("per_block", { PONDER_PATCH_BATCH_BLOCKS: "0" });
    expect(perBlock.counts.batches).toBe(0);
    // dense chain: ~10 transactions a block, ~100 blocks with logs
    expect(perBlock.counts.blockHttpRequests).toBeGreaterThan(50);
    expect(perBlock.counts.blockHttpRequests).toBe(perBlock.counts.blockCalls);
    expect(perBlock.checksums.reduce((n, c) => n + c.rows, 0)).toBeGreaterThan(400);
  }, 300_000);

  it("batched: far fewer HTTP requests than blocks with logs, the same rows", async () => {
    const batched = await backfill("batched");
    expect(batched.counts.batches).toBeGreaterThan(0);
    expect(batched.counts.blockCalls).toBeGreaterThanOrEqual(perBlock.counts.blockCalls * 0.9);
    expect(batched.counts.blockHttpRequests).toBeLessThan(perBlock.counts.blockHttpRequests / 5);
    expect(compareChecksums(perBlock.checksums, batched.checksums)).toEqual([]);
  }, 300_000);

  it("a node that refuses batches: falls back to single requests, the same rows", async () => {
    proxy.setRefuseBatches(true);
    try {
      const fallback = await backfill("fallback");
      expect(fallback.counts.batches).toBeGreaterThan(0);
      expect(fallback.counts.blockHttpRequests).toBeGreaterThanOrEqual(perBlock.counts.blockHttpRequests * 0.9);
      expect(compareChecksums(perBlock.checksums, fallback.checksums)).toEqual([]);
    } finally {
      proxy.setRefuseBatches(false);
    }
  }, 300_000);
});
