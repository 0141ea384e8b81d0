/**
 * `npm run bench`: figures measured side by side in one run, reported as ratios.
 *   1. deploy + seed of the local protocol (absolute time; the target is < 60 s);
 *   2. indexer backfill of the same chain with one RPC URL vs several "lanes" of the same URL
 *      (Ponder throttles each URL), alternating the two variants over several rounds;
 *   3. peak memory (RSS) of the indexer process in each variant.
 * Uses DATABASE_URL when set, else an embedded PostgreSQL in a temp folder.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { roleAccount, type Role } from "../devnet/accounts";
import { startAnvil } from "../devnet/anvil";
import { deployProtocol } from "../devnet/deploy";
import { connectProtocol } from "../devnet/protocol";
import { seedDemo } from "../devnet/seed";
import { writeDeployment } from "../chain/deployments";
import { startIndexer, clearSyncCache } from "../ops/indexer";
import { createDatabase, dropDatabase, prepareDirectoryForPostgres, startEmbeddedPostgres, urlWithDatabase } from "../ops/postgres";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const EXTRA_VOTES = Number(process.env.BENCH_EXTRA_VOTES ?? 400);

function rssKb(pid: number): number {
  const out = spawnSync("ps", ["-o", "rss=", "-p", String(pid)], { encoding: "utf8" }).stdout.trim();
  return Number(out) || 0;
}

async function backfill(databaseUrl: string, rpcUrl: string, deploymentsFile: string, lanes: number, round: number) {
  await clearSyncCache(databaseUrl);
  const started = performance.now();
  const indexer = await startIndexer({
    databaseUrl,
    schema: `bench_${lanes}_${round}`,
    viewsSchema: `bench_views_${lanes}_${round}`,
    rpcUrl,
    deploymentsFile,
    logLevel: "warn",
    onLog: () => undefined,
    env: { PONDER_RPC_LANES: String(lanes) },
  });
  let peak = 0;
  const sampler = setInterval(() => (peak = Math.max(peak, rssKb(indexer.process.pid!))), 200);
  await indexer.waitUntilReady(15 * 60_000);
  const seconds = (performance.now() - started) / 1000;
  clearInterval(sampler);
  await indexer.stop();
  return { seconds, peakMb: peak / 1024 };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main() {
  let serverUrl = process.env.DATABASE_URL;
  let stopPostgres = async () => undefined as unknown;
  if (!serverUrl) {
    const root = mkdtempSync(path.join(os.tmpdir(), "bench-pg-"));
    prepareDirectoryForPostgres(root);
    const server = await startEmbeddedPostgres({ dataDir: path.join(root, "data"), database: "postgres" });
    serverUrl = server.url;
    stopPostgres = server.stop;
  }
  const dbName = `bench_${Date.now()}`;
  await createDatabase(serverUrl, dbName);
  const databaseUrl = urlWithDatabase(serverUrl, dbName);

  const chain = await startAnvil();
  const t0 = performance.now();
  const deployment = await deployProtocol(chain.rpcUrl);
  const tDeploy = performance.now();
  await seedDemo(chain.rpcUrl, deployment);
  const tSeed = performance.now();
  console.log(`deploy ${(tDeploy - t0).toFixed(0)} ms, seed ${(tSeed - tDeploy).toFixed(0)} ms (target: together < 60 s)`);

  const p = connectProtocol(chain.rpcUrl, deployment);
  const voters: Array<[Role, bigint]> = [["voter1", 4n], ["voter2", 2n], ["voter3", 1n]];
  for (let i = 0; i < EXTRA_VOTES; i++) {
    const [role, pod] = voters[i % voters.length]!;
    await p.write(roleAccount(role), "PodManager", "vote", [pod, BigInt(1_000 + i), i % 4 !== 0]);
  }
  await p.testClient.mine({ blocks: 40 });
  const head = await p.publicClient.getBlockNumber();
  const deploymentsFile = path.join(mkdtempSync(path.join(os.tmpdir(), "bench-dep-")), "deployments.json");
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

  await chain.stop();
  await dropDatabase(serverUrl, dbName);
  await stopPostgres();
}

await main();
