/**
 * `npm run bench`: figures measured side by side in one run, reported as ratios.
 * Sections (BENCH_SECTIONS, comma-separated; default all):
 *   seed      deploy + seed of the local protocol (absolute time; the target is < 60 s);
 *   lanes     indexer backfill of the seeded chain with one RPC URL vs six "lanes" of the same
 *             URL, alternating over BENCH_ROUNDS rounds (BENCH_EXTRA_VOTES extra votes);
 *   backfill  generated chains (bench/chain-gen.ts): for each, the minimal getLogs indexer
 *             (bench/minimal-indexer.ts), the indexer of BENCH_BASELINE_REF (a git commit, the code
 *             before the issue-13 work by default; "none" skips it) and this indexer, on the same
 *             chain and database: events/s, ratios, peak RSS, and the exactness check (per-table
 *             row counts and checksums of this indexer vs the baseline commit's);
 *   reindex   on the largest dense chain: a cold backfill with Ponder's RPC cache on, then a
 *             reindex into a new schema (what a code change does) reading the cache; on loopback,
 *             then again through an RTT-MODELLED node (bench/rpc-latency.ts: every HTTP request
 *             held BENCH_RPC_RTT_MS, default 40; 0 skips it), as a remote Base node would;
 *   live      after the backfill, 100 votes/s on a chain mining a block every second: the time
 *             from sending a vote to its row being visible in the views schema the API reads.
 *   proxy     (not in the default list; needs wrk and nginx) the read path's 200-connection mix
 *             straight to one API replica, through nginx with 1 and with 3 replicas, and with a
 *             read replica when one is given (bench/proxy.ts: its settings are at its top).
 * Read path (issue 12), instead of the sections: BENCH_READ_PATH=1 loads the API's public reads on
 * generated rows (bench/read-path/run.ts); BENCH_READ_HONEST=1 the same routes on the honest path,
 * BENCH_HONEST_PODS pods (default 10,000) minted and voted on anvil, indexed by this indexer and given
 * metadata through the API (bench/read-path/honest.ts).
 * Chains: BENCH_INDEXER_EVENTS (dense, comma-separated, default 10000,50000), BENCH_SPARSE
 * (events of the sparse chain, 1 a block, default 2000; 0 skips), BENCH_LARGE=1 adds a dense
 * 150,000-event chain, BENCH_1M=1 a dense 1,000,000-event chain.
 * Backfill also runs Ponder with this code's handlers emptied (bench/ponder-floor.ts): the fastest
 * any handlers could make it on Ponder 0.16.10; BENCH_PONDER_FLOOR=0 skips it.
 * BENCH_BASELINE_PATCHED=1 runs the baseline commit with this Ponder patch, its later switches
 * off (BENCH_BASELINE_PATCH_ENV, K=V,…; default PONDER_PATCH_MERGE_GETLOGS=0, the patch as of
 * run 5), instead of Ponder as published.
 * Uses DATABASE_URL when set, else an embedded PostgreSQL in a temp folder.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, realpathSync, rmSync, symlinkSync } from "node:fs";
import { benchTempDir } from "./temp-dir";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { roleAccount, type Role } from "../devnet/accounts";
import { startAnvil } from "../devnet/anvil";
import { deployProtocol } from "../devnet/deploy";
import { connectProtocol } from "../devnet/protocol";
import { seedDemo } from "../devnet/seed";
import { writeDeployment, type Deployment } from "../chain/deployments";
import { startIndexer, clearSyncCache, PROJECT_ROOT } from "../ops/indexer";
import { createDatabase, dropDatabase, urlWithDatabase } from "../ops/postgres";
import { benchPostgres } from "./postgres";
import { startBenchAnvil } from "./anvil";
import { generateChain } from "./chain-gen";
import { compareChecksums, tableChecksums } from "./checksum";
import { runMinimalIndexer } from "./minimal-indexer";
import { startRpcSimulator } from "./rpc-simulator";
import { emptyHandlersRoot } from "./ponder-floor";
import { startLatencyProxy } from "./rpc-latency";
import { parseCommandLine } from "../ops/cli";

// Settings are environment variables (the comment above lists them); no option runs anything else.
parseCommandLine({
  usage: `Usage: [BENCH_SECTIONS=seed,lanes,backfill,reindex,live] [BENCH_…=…] npm run bench
  Indexer figures measured side by side in one run and reported as ratios; BENCH_READ_PATH=1 and/or
  BENCH_READ_HONEST=1 run the read-path bench instead; BENCH_SECTIONS=proxy the read mix through nginx
  with 1 and 3 API replicas (bench/proxy.ts). Every setting and section is described at the
  top of bench/run.ts; the figures and how to read them are in bench/README.md.`,
  options: {},
});

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const EXTRA_VOTES = Number(process.env.BENCH_EXTRA_VOTES ?? 400);
const SECTIONS = new Set((process.env.BENCH_SECTIONS ?? "seed,lanes,backfill,reindex,live,node").split(",").map((s) => s.trim()));
/** The last commit before the issue-13 work: its indexer is "before" and the exactness reference. */
const DEFAULT_BASELINE_REF = "80a4021";
const BASELINE_REF = process.env.BENCH_BASELINE_REF ?? DEFAULT_BASELINE_REF;

/** RSS (kB) and CPU time (s, user + system) of a process. */
function sample(pid: number): { rssKb: number; cpuSeconds: number } {
  const [rss, cpu] = spawnSync("ps", ["-o", "rss=,cputimes=", "-p", String(pid)], { encoding: "utf8" }).stdout.trim().split(/\s+/);
  return { rssKb: Number(rss) || 0, cpuSeconds: Number(cpu) || 0 };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const fmt = (n: number, digits = 0) => n.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits });

/** Start-to-ready time, peak RSS and CPU time of the indexer process (CPU time is less sensitive to other load). */
type RunResult = { seconds: number; peakMb: number; cpuSeconds: number };

async function runPonder(options: {
  databaseUrl: string;
  rpcUrl: string;
  deploymentsFile: string;
  schema: string;
  root?: string;
  env?: Record<string, string | undefined>;
  clearCache?: boolean;
  keepRunning?: boolean;
}): Promise<RunResult & { stop: () => Promise<void> }> {
  if (options.clearCache !== false) await clearSyncCache(options.databaseUrl);
  const started = performance.now();
  const indexer = await startIndexer({
    databaseUrl: options.databaseUrl,
    schema: options.schema,
    viewsSchema: `${options.schema}_views`,
    rpcUrl: options.rpcUrl,
    deploymentsFile: options.deploymentsFile,
    logLevel: "warn",
    onLog: (line) => {
      if (process.env.BENCH_VERBOSE) console.log(`    [${options.schema}] ${line}`);
    },
    env: options.env ?? {},
    ...(options.root ? { root: options.root } : {}),
  });
  let peak = 0;
  let cpuSeconds = 0;
  const sampler = setInterval(() => {
    const s = sample(indexer.process.pid!);
    peak = Math.max(peak, s.rssKb);
    cpuSeconds = Math.max(cpuSeconds, s.cpuSeconds);
  }, 200);
  try {
    await indexer.waitUntilReady(60 * 60_000);
  } catch (error) {
    clearInterval(sampler);
    await indexer.stop();
    throw error;
  }
  const seconds = (performance.now() - started) / 1000;
  clearInterval(sampler);
  if (!options.keepRunning) await indexer.stop();
  return { seconds, peakMb: peak / 1024, cpuSeconds, stop: () => indexer.stop() };
}

async function backfill(databaseUrl: string, rpcUrl: string, deploymentsFile: string, lanes: number, round: number) {
  return runPonder({ databaseUrl, rpcUrl, deploymentsFile, schema: `bench_${lanes}_${round}`, env: { PONDER_RPC_LANES: String(lanes) } });
}

/**
 * The switches that turn this patch into the baseline commit's (BENCH_BASELINE_PATCH_ENV,
 * comma-separated K=V; default: run 5's patch, i.e. without the merged eth_getLogs).
 */
function baselinePatchSwitches(): Record<string, string> {
  const spec = process.env.BENCH_BASELINE_PATCH_ENV ?? "PONDER_PATCH_MERGE_GETLOGS=0";
  return Object.fromEntries(
    spec
      .split(",")
      .map((pair) => pair.trim())
      .filter(Boolean)
      .map((pair) => {
        const [name, ...value] = pair.split("=");
        if (!name || value.length === 0) throw new Error(`BENCH_BASELINE_PATCH_ENV: expected K=V, got "${pair}"`);
        return [name, value.join("=")];
      }),
  );
}

/** A checkout of `ref` in a temp folder (node_modules linked), to run that commit's indexer. */
function checkoutBaseline(ref: string): string | undefined {
  if (ref === "none" || ref === "") return undefined;
  const exists = spawnSync("git", ["cat-file", "-e", `${ref}^{commit}`], { cwd: PROJECT_ROOT });
  if (exists.status !== 0) {
    console.log(`baseline commit ${ref} not found: "before" figures and the exactness check are skipped`);
    return undefined;
  }
  const dir = mkdtempSync(path.join(os.tmpdir(), "bench-baseline-"));
  const archive = spawnSync("sh", ["-c", `git archive ${ref} | tar -x -C "${dir}"`], { cwd: PROJECT_ROOT });
  if (archive.status !== 0) throw new Error(`git archive ${ref} failed: ${archive.stderr}`);
  symlinkSync(realpathSync(path.join(PROJECT_ROOT, "node_modules")), path.join(dir, "node_modules"));
  return dir;
}

type ChainSpec = { label: string; events: number; shape: "dense" | "sparse" };

async function prepareChain(spec: ChainSpec) {
  const chain = await startBenchAnvil();
  const deployment = await deployProtocol(chain.rpcUrl);
  await seedDemo(chain.rpcUrl, deployment);
  const t = performance.now();
  const generated = await generateChain(chain.rpcUrl, deployment, { events: spec.events, shape: spec.shape });
  const deploymentsFile = path.join(benchTempDir("bench-dep-"), "deployments.json");
  writeDeployment({ ...deployment, rpcUrl: chain.rpcUrl }, deploymentsFile);
  console.log(
    `  chain ${spec.label}: ${fmt(generated.transactions)} transactions in ${fmt(generated.blocks)} blocks, head ${generated.head}, generated in ${((performance.now() - t) / 1000).toFixed(1)} s`,
  );
  return { chain, deployment, deploymentsFile, head: Number(generated.head) };
}

function contractsOf(deployment: Deployment) {
  const { CoreToken, VeCore, SubnetManager, PodManager } = deployment.contracts;
  return { CoreToken, VeCore, SubnetManager, PodManager };
}

type Row = { label: string; events: number; blocks: number; minimal: number; before?: RunResult; floor?: RunResult; after: RunResult; exact?: string };

async function sectionBackfill(serverUrl: string) {
  const dense = (process.env.BENCH_INDEXER_EVENTS ?? "10000,50000").split(",").map((s) => Number(s.trim())).filter((n) => n > 0);
  if (process.env.BENCH_LARGE === "1") dense.push(150_000);
  if (process.env.BENCH_1M === "1") dense.push(1_000_000);
  const sparse = Number(process.env.BENCH_SPARSE ?? 2000);
  const specs: ChainSpec[] = [
    ...dense.map((events) => ({ label: `dense ${fmt(events)}`, events, shape: "dense" as const })),
    ...(sparse > 0 ? [{ label: `sparse ${fmt(sparse)}`, events: sparse, shape: "sparse" as const }] : []),
  ];
  const baselineRoot = checkoutBaseline(BASELINE_REF);
  const floorRoot = process.env.BENCH_PONDER_FLOOR === "0" ? undefined : emptyHandlersRoot();
  console.log(
    `backfill: ${specs.map((s) => s.label).join(", ")}; before = commit ${baselineRoot ? BASELINE_REF : "(skipped)"}; ${os.cpus().length} CPUs, ${os.cpus()[0]?.model ?? ""}`,
  );
  const rows: Row[] = [];
  let largestDense: { chain: Awaited<ReturnType<typeof prepareChain>>; databaseUrl: string; dbName: string; after: RunResult } | undefined;
  try {
    for (const spec of specs) {
      const dbName = `bench_${spec.shape}_${spec.events}_${Date.now()}`;
      await createDatabase(serverUrl, dbName);
      const databaseUrl = urlWithDatabase(serverUrl, dbName);
      const prepared = await prepareChain(spec);
      const { chain, deploymentsFile } = prepared;
      let keep = false;
      try {
        const finalized = prepared.head - 30;
        const cpu0 = process.cpuUsage();
        const minimal = await runMinimalIndexer({ rpcUrl: chain.rpcUrl, databaseUrl, schema: "bench_minimal", contracts: contractsOf(prepared.deployment), toBlock: finalized });
        const cpu = process.cpuUsage(cpu0);
        console.log(`    minimal: ${fmt(minimal.events)} events (${fmt(minimal.blocksWithLogs)} blocks with logs) in ${minimal.seconds.toFixed(1)} s, CPU ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s (bench process)`);
        let before: RunResult | undefined;
        if (baselineRoot) {
          // as that commit ran it: Ponder's default cache size, node's default heap limit, and
          // Ponder unpatched (the checkout shares this node_modules, where patches/ is applied:
          // PONDER_PATCH_BATCH_BLOCKS=0 turns the patched path off)
          // BENCH_BASELINE_PATCHED=1: the baseline commit as it ran with its own patch instead
          // (this node_modules' patch with the switches added since turned off; this settings).
          const asBefore =
            process.env.BENCH_BASELINE_PATCHED === "1"
              ? baselinePatchSwitches()
              : { PONDER_CACHE_BYTES: undefined, INDEXER_MAX_OLD_SPACE_MB: "0", PONDER_PATCH_BATCH_BLOCKS: "0" };
          before = await runPonder({ databaseUrl, rpcUrl: chain.rpcUrl, deploymentsFile, schema: "bench_before", root: baselineRoot, env: asBefore });
          console.log(`    before:  ready in ${before.seconds.toFixed(1)} s, peak RSS ${before.peakMb.toFixed(0)} MB, CPU ${before.cpuSeconds} s`);
        }
        let floor: RunResult | undefined;
        if (floorRoot) {
          floor = await runPonder({ databaseUrl, rpcUrl: chain.rpcUrl, deploymentsFile, schema: "bench_floor", root: floorRoot });
          console.log(`    Ponder, empty handlers: ready in ${floor.seconds.toFixed(1)} s, peak RSS ${floor.peakMb.toFixed(0)} MB, CPU ${floor.cpuSeconds} s`);
        }
        const after = await runPonder({ databaseUrl, rpcUrl: chain.rpcUrl, deploymentsFile, schema: "bench_after" });
        console.log(`    after:   ready in ${after.seconds.toFixed(1)} s, peak RSS ${after.peakMb.toFixed(0)} MB, CPU ${after.cpuSeconds} s`);
        let exact: string | undefined;
        if (before) {
          const diffs = compareChecksums(await tableChecksums(databaseUrl, "bench_before"), await tableChecksums(databaseUrl, "bench_after"));
          exact = diffs.length === 0 ? "identical" : `DIFFERENT (${diffs.join("; ")})`;
          console.log(`    exactness vs ${BASELINE_REF}: ${exact}`);
        }
        const row: Row = { label: spec.label, events: minimal.events, blocks: minimal.blocksWithLogs, minimal: minimal.seconds, after, ...(before ? { before } : {}), ...(floor ? { floor } : {}), ...(exact ? { exact } : {}) };
        rows.push(row);
        if (spec.shape === "dense" && (!largestDense || spec.events >= dense[dense.length - 1]!)) {
          if (largestDense) {
            await largestDense.chain.chain.stop();
            await dropDatabase(serverUrl, largestDense.dbName);
          }
          largestDense = { chain: prepared, databaseUrl, dbName, after };
          keep = true;
        }
      } finally {
        if (!keep) {
          await chain.stop();
          await dropDatabase(serverUrl, dbName);
        }
      }
    }
  } finally {
    if (baselineRoot) rmSync(baselineRoot, { recursive: true, force: true });
    if (floorRoot) rmSync(floorRoot, { recursive: true, force: true });
  }

  console.log("\nbackfill (start to /ready; events/s = indexed events / seconds; ratio = ours / minimal):");
  console.log("| chain | events | blocks with logs | minimal ev/s | before ev/s | before ratio | before peak RSS | Ponder, empty handlers: ev/s | its ratio | after ev/s | after ratio | after peak RSS | exact |");
  console.log("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|");
  for (const r of rows) {
    const minimal = r.events / r.minimal;
    const b = r.before ? [fmt(r.events / r.before.seconds), (r.events / r.before.seconds / minimal).toFixed(3), `${r.before.peakMb.toFixed(0)} MB`] : ["-", "-", "-"];
    const f = r.floor ? [fmt(r.events / r.floor.seconds), (r.events / r.floor.seconds / minimal).toFixed(3)] : ["-", "-"];
    const a = r.events / r.after.seconds;
    console.log(`| ${r.label} | ${fmt(r.events)} | ${fmt(r.blocks)} | ${fmt(minimal)} | ${b.join(" | ")} | ${f.join(" | ")} | ${fmt(a)} | ${(a / minimal).toFixed(3)} | ${r.after.peakMb.toFixed(0)} MB | ${r.exact ?? "-"} |`);
  }
  const denseRows = rows.filter((r) => r.label.startsWith("dense"));
  if (denseRows.length >= 2) {
    const first = denseRows[0]!;
    const last = denseRows[denseRows.length - 1]!;
    console.log(`peak RSS growth ${first.label} -> ${last.label}: ${(last.after.peakMb / first.after.peakMb).toFixed(2)}x (target <= 1.2x, <= 512 MB)`);
  }
  return largestDense;
}

async function sectionReindex(target: { chain: Awaited<ReturnType<typeof prepareChain>>; databaseUrl: string }) {
  const { chain, deploymentsFile } = target.chain;
  const env = { PONDER_RPC_CACHE: "1" };
  const pair = async (rpcUrl: string, label: string) => {
    const cold = await runPonder({ databaseUrl: target.databaseUrl, rpcUrl, deploymentsFile, schema: `bench_cache_cold${label}`, env });
    const warm = await runPonder({ databaseUrl: target.databaseUrl, rpcUrl, deploymentsFile, schema: `bench_cache_warm${label}`, env, clearCache: false });
    return { cold, warm };
  };
  const loopback = await pair(chain.rpcUrl, "");
  console.log(
    `\nreindex with the RPC cache (PONDER_RPC_CACHE=1), loopback anvil: cold ${loopback.cold.seconds.toFixed(1)} s, reindex into a new schema ${loopback.warm.seconds.toFixed(1)} s -> ${(loopback.cold.seconds / loopback.warm.seconds).toFixed(2)}x faster (target >= 5x)`,
  );
  const rtt = Number(process.env.BENCH_RPC_RTT_MS ?? 40);
  if (rtt > 0) {
    const proxy = await startLatencyProxy(chain.rpcUrl, rtt);
    try {
      const modelled = await pair(proxy.url, "_rtt");
      console.log(
        `reindex, RTT-MODELLED node (every HTTP request held ${rtt} ms, bench/rpc-latency.ts; bandwidth and node load not modelled): cold ${modelled.cold.seconds.toFixed(1)} s, reindex ${modelled.warm.seconds.toFixed(1)} s -> ${(modelled.cold.seconds / modelled.warm.seconds).toFixed(2)}x faster (${proxy.requests} HTTP requests)`,
      );
    } finally {
      await proxy.close();
    }
  }
}

async function sectionLive(
  target: { chain: Awaited<ReturnType<typeof prepareChain>>; databaseUrl: string },
  through?: { rpcUrl: string; label: string },
) {
  const { chain, deployment, deploymentsFile } = target.chain;
  const schema = through ? "bench_live_node" : "bench_live";
  const indexer = await runPonder({ databaseUrl: target.databaseUrl, rpcUrl: through?.rpcUrl ?? chain.rpcUrl, deploymentsFile, schema, keepRunning: true });
  const p = connectProtocol(chain.rpcUrl, deployment);
  const client = new pg.Client({ connectionString: target.databaseUrl });
  await client.connect();
  const BLOCK_SECONDS = 1;
  const RATE = 100;
  const DURATION_S = 10;
  try {
    await p.testClient.setAutomine(false);
    await p.testClient.setIntervalMining({ interval: BLOCK_SECONDS });
    const voters: Array<[Role, bigint]> = [["voter1", 4n], ["voter2", 2n], ["voter3", 1n]];
    const nonces = new Map<string, number>();
    for (const [role] of voters) nonces.set(role, await p.publicClient.getTransactionCount({ address: roleAccount(role).address, blockTag: "pending" }));
    const { encodeFunctionData } = await import("viem");
    const { PodManagerAbi } = await import("../abis");
    const { rows: columns } = await client.query<{ column_name: string }>(
      `SELECT column_name FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'vote' AND column_name IN ('tx_hash', 'txHash')`,
      [`${schema}_views`],
    );
    const txColumn = client.escapeIdentifier(columns[0]?.column_name ?? "tx_hash");
    const addresses = new Map(voters.map(([role]) => [role, roleAccount(role).address]));

    // The poller runs while the votes are sent: every 50 ms, which sampled votes are visible.
    const latencies: number[] = [];
    const pending = new Map<string, number>();
    let sending = true;
    const poller = (async () => {
      const deadline = () => !sending && performance.now() > stopPollingAt;
      let stopPollingAt = Infinity;
      while (!deadline()) {
        if (!sending && stopPollingAt === Infinity) stopPollingAt = performance.now() + 60_000;
        if (!sending && pending.size === 0) break;
        if (pending.size > 0) {
          const { rows } = await client.query<{ tx_hash: string }>(
            `SELECT ${txColumn} AS tx_hash FROM ${client.escapeIdentifier(`${schema}_views`)}.vote WHERE ${txColumn} = ANY($1)`,
            [[...pending.keys()]],
          );
          const now = performance.now();
          for (const { tx_hash } of rows) {
            const at = pending.get(tx_hash.toLowerCase());
            if (at !== undefined) {
              latencies.push((now - at) / 1000);
              pending.delete(tx_hash.toLowerCase());
            }
          }
        }
        await new Promise((r) => setTimeout(r, 50));
      }
    })();

    // RATE votes a second, sent as one JSON-RPC batch every 100 ms.
    const TICK_MS = 100;
    const perTick = (RATE * TICK_MS) / 1000;
    const startedAt = performance.now();
    let sentCount = 0;
    for (let tick = 0; tick < (DURATION_S * 1000) / TICK_MS; tick++) {
      const delay = startedAt + tick * TICK_MS - performance.now();
      if (delay > 0) await new Promise((r) => setTimeout(r, delay));
      const batch = Array.from({ length: perTick }, (_, k) => {
        const i = tick * perTick + k;
        const [role, pod] = voters[i % voters.length]!;
        const nonce = nonces.get(role)!;
        nonces.set(role, nonce + 1);
        const data = encodeFunctionData({ abi: PodManagerAbi, functionName: "vote", args: [pod, 1n, true] });
        return { jsonrpc: "2.0", id: i, method: "eth_sendTransaction", params: [{ from: addresses.get(role), to: deployment.contracts.PodManager.address, gas: "0x30d40", nonce: `0x${nonce.toString(16)}`, data }] };
      });
      const at = performance.now();
      const response = await fetch(chain.rpcUrl, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(batch) });
      const results = (await response.json()) as Array<{ result?: `0x${string}`; error?: { message: string } }>;
      for (const r of results) {
        if (!r.result) throw new Error(`vote not sent: ${r.error?.message}`);
        pending.set(r.result.toLowerCase(), at);
        sentCount++;
      }
    }
    const sendSeconds = (performance.now() - startedAt) / 1000;
    sending = false;
    await poller;
    latencies.sort((a, b) => a - b);
    const pct = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? NaN;
    console.log(
      `\nlive${through ? ` (${through.label})` : ""}: ${RATE} votes/s for ${DURATION_S} s (${sentCount} sent in ${sendSeconds.toFixed(1)} s), a block every ${BLOCK_SECONDS} s; send -> row visible in the views schema (${latencies.length} seen, ${pending.size} not seen): median ${median(latencies).toFixed(2)} s, p95 ${pct(0.95).toFixed(2)} s, p99 ${pct(0.99).toFixed(2)} s, max ${pct(1).toFixed(2)} s (target: p99 <= 2 s, one Base block)`,
    );
  } finally {
    await client.end();
    await indexer.stop();
    await p.testClient.setIntervalMining({ interval: 0 }).catch(() => undefined);
  }
}

/**
 * The backfill through a modelled hosted node (bench/rpc-simulator.ts): a round trip of
 * BENCH_RPC_RTT_MS (default 40), eth_getLogs capped at 2,000 blocks with a provider's error text,
 * batches capped at 100 calls. Ours and the minimal indexer through the same node: events/s ratio,
 * HTTP requests and JSON-RPC calls per 1,000 events, peak RSS; then the live section through it.
 */
async function sectionNode(target: { chain: Awaited<ReturnType<typeof prepareChain>>; databaseUrl: string }) {
  const { chain, deployment, deploymentsFile, head } = target.chain;
  const rtt = Number(process.env.BENCH_RPC_RTT_MS ?? 40);
  const profile = { latencyMs: rtt, maxBlockRange: 2_000, rangeErrorStyle: "alchemy" as const, maxBatchSize: 100, seed: 1 };
  const node = await startRpcSimulator({ upstream: chain.rpcUrl, ...profile });
  try {
    const minimal = await runMinimalIndexer({ rpcUrl: node.url, databaseUrl: target.databaseUrl, schema: "bench_node_minimal", contracts: contractsOf(deployment), toBlock: head - 30 });
    const minimalStats = { ...node.stats };
    node.resetStats();
    const ours = await runPonder({ databaseUrl: target.databaseUrl, rpcUrl: node.url, deploymentsFile, schema: "bench_node" });
    const ourStats = { ...node.stats };
    const perK = (n: number) => ((n * 1000) / minimal.events).toFixed(1);
    const minimalRate = minimal.events / minimal.seconds;
    const ourRate = minimal.events / ours.seconds;
    console.log(`\nbackfill through a modelled hosted node (${rtt} ms a round trip, eth_getLogs <= 2,000 blocks, batches <= 100 calls; bench/rpc-simulator.ts):`);
    console.log("| indexer | events | seconds | ev/s | ratio | HTTP requests / 1k events | JSON-RPC calls / 1k events | peak RSS |");
    console.log("|---|---:|---:|---:|---:|---:|---:|---:|");
    console.log(`| minimal | ${fmt(minimal.events)} | ${minimal.seconds.toFixed(1)} | ${fmt(minimalRate)} | 1 | ${perK(minimalStats.httpRequests)} | ${perK(minimalStats.calls)} | - |`);
    console.log(`| ours (start to /ready) | ${fmt(minimal.events)} | ${ours.seconds.toFixed(1)} | ${fmt(ourRate)} | ${(ourRate / minimalRate).toFixed(3)} | ${perK(ourStats.httpRequests)} | ${perK(ourStats.calls)} | ${ours.peakMb.toFixed(0)} MB |`);
    console.log(`  ours by method: ${Object.entries(ourStats.byMethod).map(([m, n]) => `${m} ${n}`).join(", ")}; range errors ${ourStats.rangeErrors}`);
    await sectionLive(target, { rpcUrl: node.url, label: `through the modelled node, ${rtt} ms` });
  } finally {
    await node.close();
  }
}

async function sectionSeedAndLanes(databaseUrl: string) {
  const chain = await startAnvil();
  try {
    const t0 = performance.now();
    const deployment = await deployProtocol(chain.rpcUrl);
    const tDeploy = performance.now();
    await seedDemo(chain.rpcUrl, deployment);
    const tSeed = performance.now();
    console.log(`deploy ${(tDeploy - t0).toFixed(0)} ms, seed ${(tSeed - tDeploy).toFixed(0)} ms (target: together < 60 s)`);
    if (!SECTIONS.has("lanes")) return;

    const p = connectProtocol(chain.rpcUrl, deployment);
    const voters: Array<[Role, bigint]> = [["voter1", 4n], ["voter2", 2n], ["voter3", 1n]];
    for (let i = 0; i < EXTRA_VOTES; i++) {
      const [role, pod] = voters[i % voters.length]!;
      await p.write(roleAccount(role), "PodManager", "vote", [pod, BigInt(1_000 + i), i % 4 !== 0]);
    }
    await p.testClient.mine({ blocks: 40 });
    const head = await p.publicClient.getBlockNumber();
    const deploymentsFile = path.join(benchTempDir("bench-dep-"), "deployments.json");
    writeDeployment({ ...deployment, rpcUrl: chain.rpcUrl }, deploymentsFile);
    console.log(`chain: ${head} blocks, ${EXTRA_VOTES} extra votes`);

    const results: Record<number, { seconds: number[]; peakMb: number[] }> = { 1: { seconds: [], peakMb: [] }, 6: { seconds: [], peakMb: [] } };
    for (let round = 0; round < ROUNDS; round++) {
      for (const lanes of round % 2 === 0 ? [1, 6] : [6, 1]) {
        const r = await backfill(databaseUrl, chain.rpcUrl, deploymentsFile, lanes, round);
        results[lanes]!.seconds.push(r.seconds);
        results[lanes]!.peakMb.push(r.peakMb);
        console.log(`  round ${round + 1}, ${lanes} lane(s): ready in ${r.seconds.toFixed(1)} s, peak RSS ${r.peakMb.toFixed(0)} MB`);
      }
    }
    const one = median(results[1]!.seconds);
    const six = median(results[6]!.seconds);
    console.log(`indexer start-to-ready, median of ${ROUNDS}: 1 lane ${one.toFixed(1)} s, 6 lanes ${six.toFixed(1)} s -> 6 lanes are ${(one / six).toFixed(2)}x faster`);
    console.log(`indexer peak RSS, median: 1 lane ${median(results[1]!.peakMb).toFixed(0)} MB, 6 lanes ${median(results[6]!.peakMb).toFixed(0)} MB (ratio ${(median(results[6]!.peakMb) / median(results[1]!.peakMb)).toFixed(2)})`);
  } finally {
    await chain.stop();
  }
}

async function main() {
  const { serverUrl, stop: stopPostgres } = await benchPostgres();
  try {
    if (SECTIONS.has("seed") || SECTIONS.has("lanes")) {
      const dbName = `bench_${Date.now()}`;
      await createDatabase(serverUrl, dbName);
      try {
        await sectionSeedAndLanes(urlWithDatabase(serverUrl, dbName));
      } finally {
        await dropDatabase(serverUrl, dbName);
      }
    }
    if (SECTIONS.has("backfill") || SECTIONS.has("reindex") || SECTIONS.has("live") || SECTIONS.has("node")) {
      const largest = await sectionBackfill(serverUrl);
      if (largest) {
        try {
          if (SECTIONS.has("reindex")) await sectionReindex(largest);
          if (SECTIONS.has("live")) await sectionLive(largest);
          if (SECTIONS.has("node")) await sectionNode(largest);
        } finally {
          await largest.chain.chain.stop();
          await dropDatabase(serverUrl, largest.dbName);
        }
      }
    }
  } finally {
    await stopPostgres();
  }
}

// the read-path bench (issue 12) needs Debian's wrk: BENCH_READ_PATH=1 (generated data) and/or
// BENCH_READ_HONEST=1 (the honest path: indexed from anvil, metadata through the API) npm run bench
// the proxy bench (issue 38) needs wrk and nginx: BENCH_SECTIONS=proxy npm run bench (bench/proxy.ts)
if (SECTIONS.has("proxy")) {
  await (await import("./proxy")).runProxyBench();
  if (SECTIONS.size === 1) process.exit(0);
}
if (process.env.BENCH_READ_PATH === "1" || process.env.BENCH_READ_HONEST === "1") {
  if (process.env.BENCH_READ_PATH === "1") await (await import("./read-path/run")).runReadPathBench();
  if (process.env.BENCH_READ_HONEST === "1") await (await import("./read-path/honest")).runHonestReadBench();
  process.exit(0);
}
await main();
