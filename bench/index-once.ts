/**
 * One indexer run on a running chain (see bench/devchain.ts), for work on the indexer:
 *   npx tsx bench/index-once.ts <deployments.json> [--root <checkout>] [--schema <name>] [--env K=V ...] [--minimal] [--checksums <file>]
 *                               [--rtt <ms>] [--reindex] [--template <database>]
 * Prints start-to-ready seconds and peak RSS; --checksums writes the per-table checksums to a
 * file, or compares with it when it exists. Uses DATABASE_URL (a fresh database per run).
 * --rtt <ms>: the indexer (not the minimal one) reads the chain through bench/rpc-latency.ts, a
 * proxy that holds each HTTP request <ms> (a MODELLED remote node; label figures as such).
 * --reindex: Ponder's RPC cache on (PONDER_RPC_CACHE=1); after the cold run, a second run into
 * a new schema (what a code change does) that reads the cache; prints both times and the ratio.
 * --template <database>: a chain made with `devchain.ts --calls-db <database>` (no old states): the
 * run's database is a copy of that one, whose RPC cache holds only the answers of the eth_calls
 * at the deployment blocks, and the indexer reads that cache (PONDER_RPC_CACHE=1); the blocks,
 * transactions and logs are fetched cold as in any run.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { readDeployment } from "../chain/deployments";
import { clearSyncCache, startIndexer } from "../ops/indexer";
import { copyDatabase, createDatabase, dropDatabase, urlWithDatabase } from "../ops/postgres";
import { compareChecksums, tableChecksums, type TableChecksum } from "./checksum";
import { runMinimalIndexer } from "./minimal-indexer";
import { startLatencyProxy } from "./rpc-latency";

const args = process.argv.slice(2);
const file = args[0]!;
const opt = (name: string) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const env: Record<string, string> = {};
args.forEach((a, i) => {
  if (a === "--env") {
    const [k, ...v] = args[i + 1]!.split("=");
    env[k!] = v.join("=");
  }
});
const deployment = readDeployment(file)!;
const serverUrl = process.env.DATABASE_URL!;
const dbName = `idx_once_${Date.now()}`;
const template = opt("--template");
if (template) await copyDatabase(serverUrl, template, dbName);
else await createDatabase(serverUrl, dbName);
const databaseUrl = urlWithDatabase(serverUrl, dbName);
try {
  if (args.includes("--minimal")) {
    const head = Number(
      ((await (await fetch(deployment.rpcUrl!, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_blockNumber", params: [] }) })).json()) as { result: string }).result,
    );
    const { CoreToken, VeCore, SubnetManager, PodManager } = deployment.contracts;
    const m = await runMinimalIndexer({ rpcUrl: deployment.rpcUrl!, databaseUrl, schema: "minimal", contracts: { CoreToken, VeCore, SubnetManager, PodManager }, toBlock: head - 30 });
    console.log(`minimal: ${m.events} events in ${m.seconds.toFixed(2)} s = ${(m.events / m.seconds).toFixed(0)} ev/s`);
  }
  await clearSyncCache(databaseUrl, 8453, template ? ["rpc_request_results"] : []);
  const schema = opt("--schema") ?? "once";
  const root = opt("--root");
  const rtt = opt("--rtt") ? Number(opt("--rtt")) : 0;
  const reindex = args.includes("--reindex");
  const proxy = rtt > 0 ? await startLatencyProxy(deployment.rpcUrl!, rtt) : undefined;
  const rpcUrl = proxy?.url ?? deployment.rpcUrl!;
  if (proxy) console.log(`RTT-modelled node: every HTTP request to the chain held ${rtt} ms (bench/rpc-latency.ts)`);
  const runOnce = async (runSchema: string) => {
    const requestsBefore = proxy?.requests ?? 0;
    const started = performance.now();
    const indexer = await startIndexer({
      databaseUrl,
      schema: runSchema,
      viewsSchema: `${runSchema}_views`,
      deploymentsFile: file,
      rpcUrl,
      logLevel: (opt("--log-level") as "warn") ?? "warn",
      env: { ...env, ...(reindex || template ? { PONDER_RPC_CACHE: "1" } : {}) },
      ...(root ? { root } : {}),
      ...(opt("--node-args") ? { nodeArgs: opt("--node-args")!.split(" ") } : {}),
    });
    let peak = 0;
    let cpu = 0;
    const sampler = setInterval(() => {
      const out = spawnSync("ps", ["-o", "rss=,cputimes=", "-p", String(indexer.process.pid)], { encoding: "utf8" }).stdout.trim().split(/\s+/);
      peak = Math.max(peak, Number(out[0]) || 0);
      cpu = Number(out[1]) || cpu;
    }, 200);
    await indexer.waitUntilReady(60 * 60_000);
    clearInterval(sampler);
    const seconds = (performance.now() - started) / 1000;
    console.log(`${runSchema}: ready in ${seconds.toFixed(2)} s, peak RSS ${(peak / 1024).toFixed(0)} MB, CPU ${cpu} s${proxy ? `, ${proxy.requests - requestsBefore} HTTP requests to the node` : ""}`);
    // Ponder's own split of the backfill: extract (waiting for sync data) vs transform (indexing)
    const metrics = await (await fetch(`${indexer.url}/metrics`)).text();
    for (const line of metrics.split("\n")) {
      if (/^ponder_(historical_concurrency_group_duration|historical_transform_duration|rpc_request_duration_count|indexing_store_queries_total|indexing_cache_requests_total|indexing_cache_query_duration_(sum|count)|database_method_duration_(sum|count))/.test(line)) console.log(`  ${line}`);
    }
    await indexer.stop();
    return seconds;
  };
  const cold = await runOnce(schema);
  if (reindex) {
    const warm = await runOnce(`${schema}_re`);
    console.log(`reindex from the RPC cache${proxy ? ` (RTT-modelled ${rtt} ms)` : " (loopback)"}: cold ${cold.toFixed(2)} s, reindex ${warm.toFixed(2)} s -> ${(cold / warm).toFixed(2)}x`);
  }
  await proxy?.close();
  const checksumFile = opt("--checksums");
  if (checksumFile) {
    const sums = await tableChecksums(databaseUrl, schema);
    if (existsSync(checksumFile)) {
      const diffs = compareChecksums(JSON.parse(readFileSync(checksumFile, "utf8")) as TableChecksum[], sums);
      console.log(diffs.length === 0 ? "checksums identical" : `checksums DIFFERENT:\n  ${diffs.join("\n  ")}`);
    } else {
      writeFileSync(checksumFile, JSON.stringify(sums, null, 1));
      console.log(`checksums written (${sums.length} tables, ${sums.reduce((n, s) => n + s.rows, 0)} rows)`);
    }
  }
} finally {
  await dropDatabase(serverUrl, dbName);
}
