/**
 * The Ponder patch (patches/ponder+0.16.10.patch, applied by `npm install`): the historical
 * sync fetches the blocks with logs in JSON-RPC batches and writes them one INSERT per table.
 * On a generated chain, behind a proxy that counts the HTTP requests to anvil:
 * - batched: far fewer HTTP requests for blocks than blocks with logs;
 * - the same rows as Ponder's own per-block path (PONDER_PATCH_BATCH_BLOCKS=0);
 * - a node that refuses batches: the sync falls back to single requests, same rows again;
 * - eth_getLogs: one request per contract address per interval for the events without an
 *   argument filter (Ponder as published: one per event, PONDER_PATCH_MERGE_GETLOGS=0), same rows.
 * - the sync's intervals hold a bounded number of logs (PONDER_PATCH_INTERVAL_LOGS), same rows;
 * - only the transactions with our logs are fetched (by hash; blocks come as headers): on blocks
 *   mostly made of unrelated transactions, a fraction of the bytes Ponder's full blocks take.
 * - the indexing store keeps no rows of the tables no handler reads in its row cache
 *   (PONDER_PATCH_DROP_UNREAD=0 keeps them, as Ponder does), same rows.
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
  /** Historical eth_getLogs calls (by block range, to the counted head). */
  getLogs: number;
  /** Distinct (address, fromBlock, toBlock) of those calls. */
  getLogsRanges: number;
  /** eth_getBlockByNumber calls with full transactions inside batches. */
  fullBlocksInBatches: number;
  /** eth_getTransactionByHash calls. */
  transactionCalls: number;
  /** Response bytes of the requests that asked for blocks or transactions. */
  blockDataBytes: number;
};

type RpcCall = { method?: string; params?: unknown[] };

const emptyCounts = (): Counts => ({
  blockHttpRequests: 0,
  blockCalls: 0,
  batches: 0,
  getLogs: 0,
  getLogsRanges: 0,
  fullBlocksInBatches: 0,
  transactionCalls: 0,
  blockDataBytes: 0,
});

/** An HTTP JSON-RPC proxy in front of anvil that counts block requests; `refuseBatches` answers arrays with an error. */
async function startCountingProxy(target: string, lastCounted: () => bigint) {
  const counts: Counts = emptyCounts();
  const ranges = new Set<string>();
  let refuseBatches = false;
  // batches of eth_getTransactionByHash still to answer with a null (a node that lags or was reorged)
  let nullTransactionBatches = 0;
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
        if (Array.isArray(parsed))
          counts.fullBlocksInBatches += calls.filter(
            (c) => c.method === "eth_getBlockByNumber" && c.params?.[1] === true,
          ).length;
        const transactionCalls = calls.filter((c) => c.method === "eth_getTransactionByHash").length;
        counts.transactionCalls += transactionCalls;
        for (const c of calls) {
          const range =
            c.method === "eth_getLogs"
              ? (c.params?.[0] as { address?: unknown; fromBlock?: string; toBlock?: string })
              : undefined;
          if (range?.fromBlock && range.toBlock && BigInt(range.toBlock) <= lastCounted()) {
            counts.getLogs += 1;
            ranges.add(`${JSON.stringify(range.address)}|${range.fromBlock}|${range.toBlock}`);
            counts.getLogsRanges = ranges.size;
          }
        }
        if (Array.isArray(parsed) && refuseBatches) {
          res.writeHead(200, { "content-type": "application/json" });
          res.end(
            JSON.stringify({
              jsonrpc: "2.0",
              id: null,
              error: { code: -32600, message: "batch requests are not supported" },
            }),
          );
          return;
        }
        if (blockCalls > 0) {
          counts.blockHttpRequests += 1;
          counts.blockCalls += blockCalls;
        }
        const upstream = await fetch(target, { method: "POST", headers: { "content-type": "application/json" }, body });
        let text = await upstream.text();
        if (Array.isArray(parsed) && transactionCalls > 0 && nullTransactionBatches > 0) {
          nullTransactionBatches -= 1;
          const answers = JSON.parse(text) as Array<{ result: unknown }>;
          answers[0]!.result = null;
          text = JSON.stringify(answers);
        }
        if (blockCalls > 0 || transactionCalls > 0) counts.blockDataBytes += Buffer.byteLength(text);
        res.writeHead(upstream.status, { "content-type": "application/json" });
        res.end(text);
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
      Object.assign(counts, emptyCounts());
      ranges.clear();
    },
    setRefuseBatches(value: boolean) {
      refuseBatches = value;
    },
    setNullTransactionBatches(count: number) {
      nullTransactionBatches = count;
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
async function backfill(
  schema: string,
  env: Record<string, string> = {},
  onLog?: (line: string) => void,
): Promise<{ counts: Counts; checksums: TableChecksum[] }> {
  await clearSyncCache(database.url);
  proxy.reset();
  const { indexer } = await startIndexerFor(
    { ...deployment, rpcUrl: proxy.url },
    {
      databaseUrl: database.url,
      schema,
      viewsSchema: `${schema}_views`,
      rpcUrl: proxy.url,
      env,
      ...(onLog ? { onLog, logLevel: "debug" as const, logFormat: "json" as const } : {}),
    },
  );
  try {
    await indexer.waitUntilReady(180_000);
    await indexer.waitForBlock(head, 60_000);
  } finally {
    await indexer.stop();
  }
  const counts = { ...proxy.counts };
  console.info(
    `${schema}: ${counts.blockCalls} historical blocks in ${counts.blockHttpRequests} HTTP requests (${counts.batches} batches), ` +
      `${counts.transactionCalls} transactions by hash, ${Math.round(counts.blockDataBytes / 1024)} KiB of blocks and transactions, ` +
      `${counts.getLogs} eth_getLogs for ${counts.getLogsRanges} (address, range) pairs`,
  );
  return { counts, checksums: await tableChecksums(database.url, schema) };
}

beforeAll(async () => {
  [chain, database] = await Promise.all([startBenchAnvil(), useFreshDatabase()]);
  deployment = await deployProtocol(chain.rpcUrl);
  await seedDemo(chain.rpcUrl, deployment);
  // blocks mostly of unrelated transfers, like Base's: 10 protocol transactions and 30 others each
  const generated = await generateChain(chain.rpcUrl, deployment, { events: 1200, shape: "dense", noisePerBlock: 30 });
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
  let batched: { counts: Counts; checksums: TableChecksum[] };

  it("Ponder's per-block path (PONDER_PATCH_BATCH_BLOCKS=0) asks for each block with logs on its own", async () => {
    perBlock = await backfill("per_block", { PONDER_PATCH_BATCH_BLOCKS: "0" });
    expect(perBlock.counts.batches).toBe(0);
    // dense chain: ~10 transactions a block, ~100 blocks with logs
    expect(perBlock.counts.blockHttpRequests).toBeGreaterThan(50);
    expect(perBlock.counts.blockHttpRequests).toBe(perBlock.counts.blockCalls);
    expect(perBlock.checksums.reduce((n, c) => n + c.rows, 0)).toBeGreaterThan(400);
  }, 300_000);

  it("batched: far fewer HTTP requests than blocks with logs, the same rows", async () => {
    batched = await backfill("batched");
    expect(batched.counts.batches).toBeGreaterThan(0);
    expect(batched.counts.blockCalls).toBeGreaterThanOrEqual(perBlock.counts.blockCalls * 0.9);
    expect(batched.counts.blockHttpRequests).toBeLessThan(perBlock.counts.blockHttpRequests / 5);
    expect(compareChecksums(perBlock.checksums, batched.checksums)).toEqual([]);
    // headers, and only the transactions with our logs: none of the 30 transfers of each block
    expect(batched.counts.fullBlocksInBatches).toBe(0);
    expect(batched.counts.transactionCalls).toBeGreaterThan(0);
    // (2.2x fewer bytes here, where the others are bare transfers; Base's carry calldata)
    expect(batched.counts.blockDataBytes).toBeLessThan(perBlock.counts.blockDataBytes / 2);
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

  it("a node that lacks some transactions of several batches (lagging, reorged): those batches are fetched block by block, later ones batched again, the same rows", async () => {
    // more such batches than a node that answers batches wrongly may cost before batching stops
    proxy.setNullTransactionBatches(4);
    try {
      const lagging = await backfill("lagging");
      expect(lagging.counts.blockHttpRequests).toBeGreaterThan(batched.counts.blockHttpRequests);
      expect(lagging.counts.blockHttpRequests).toBeLessThan(perBlock.counts.blockHttpRequests * 0.7);
      expect(compareChecksums(perBlock.checksums, lagging.checksums)).toEqual([]);
    } finally {
      proxy.setNullTransactionBatches(0);
    }
  }, 300_000);

  it("an interval of the sync holds about PONDER_PATCH_INTERVAL_LOGS logs (default 2,500): more, smaller intervals on a dense chain, the same rows", async () => {
    const bounded = await backfill("bounded_intervals", { PONDER_PATCH_INTERVAL_LOGS: "100" });
    // ~1,300 logs: Ponder's time-based ranges cover the chain in a few intervals, 100 logs need a dozen or more
    expect(bounded.counts.getLogsRanges).toBeGreaterThan(batched.counts.getLogsRanges * 2);
    expect(compareChecksums(batched.checksums, bounded.checksums)).toEqual([]);
  }, 300_000);

  it("eth_getLogs: one request per address and interval (PONDER_PATCH_MERGE_GETLOGS=0: one per event), the same rows", async () => {
    // patched: every historical eth_getLogs is a distinct (address, range)
    expect(batched.counts.getLogs).toBeGreaterThan(0);
    expect(batched.counts.getLogs).toBe(batched.counts.getLogsRanges);
    const perEvent = await backfill("getlogs_per_event", { PONDER_PATCH_MERGE_GETLOGS: "0" });
    // Ponder as published: PodManager, SubnetManager and VeCore each ask once per event handled
    expect(perEvent.counts.getLogs).toBeGreaterThan(batched.counts.getLogs * 3);
    expect(compareChecksums(batched.checksums, perEvent.checksums)).toEqual([]);
  }, 300_000);
  it("the row cache keeps no rows of tables no handler reads (PONDER_PATCH_DROP_UNREAD=0 keeps them), the same rows", async () => {
    const notCached = (lines: string[]) =>
      lines
        .map((line) => {
          try {
            return JSON.parse(line) as { msg?: string; table?: string };
          } catch {
            return {};
          }
        })
        .filter((entry) => entry.msg === "Not caching the rows of a table no store operation has read")
        .map((entry) => entry.table);
    const dropLines: string[] = [];
    const dropped = await backfill("drop_unread", {}, (line) => dropLines.push(line));
    const keepLines: string[] = [];
    const kept = await backfill("keep_unread", { PONDER_PATCH_DROP_UNREAD: "0" }, (line) => keepLines.push(line));
    // written with plain inserts only (keyed by one log), never looked up
    expect(notCached(dropLines)).toEqual(
      expect.arrayContaining(["event_log", "event_log_topic", "vote", "payment_transfer"]),
    );
    // read by the handlers (upserts, updates): still cached
    for (const table of ["pod", "datanet", "pod_epoch", "voter_pod", "lock"])
      expect(notCached(dropLines)).not.toContain(table);
    expect(notCached(keepLines)).toEqual([]);
    expect(compareChecksums(batched.checksums, dropped.checksums)).toEqual([]);
    expect(compareChecksums(batched.checksums, kept.checksums)).toEqual([]);
  }, 300_000);
});
