/**
 * Read-path benchmark, HONEST PATH (issue 12): the routes of run.ts, measured the same way, on data
 * that came the way production data comes instead of rows generated into Postgres:
 *   1. chain: a fresh protocol on anvil and real transactions (bench/chain-gen.ts generateMarket):
 *      N pods across the datanets, minted by 10 owner wallets, and ~10 votes a pod by 10 voter
 *      wallets, spread over 10 epochs (many transactions a block, automine off);
 *   2. indexing: our indexer (startIndexer) indexes the chain to ready;
 *   3. metadata: every datanet and pod gets its off-chain metadata through the Platform API as its
 *      owner would (cookie, draft, link with the publish / mint transaction: honest-metadata.ts);
 *   4. the indexer is stopped (as in run.ts: no indexing during the load) and each route is loaded
 *      with wrk beside the bare Hono route (measure.ts).
 * Skipped: `dataset` (it needs an agent with a verified subscription order, a generated-only
 * fixture). `mePods` is one owner's pods (N / 10: 1,000 at 10k, like run.ts's power user).
 *
 *   BENCH_SECTIONS=none BENCH_READ_HONEST=1 npm run bench      (or npx tsx bench/read-path/honest.ts)
 *   BENCH_HONEST_PODS=10000         public pods
 *   BENCH_HONEST_VOTES=<10 × pods>  votes
 *   BENCH_HONEST_DATANETS=10        datanets
 *   BENCH_HONEST_TX_PER_BLOCK=200   transactions a block while generating
 *   BENCH_HONEST_CONCURRENCY=16     metadata requests in flight
 *   INDEXER_MAX_OLD_SPACE_MB=384    the indexer's heap (its default)
 *   BENCH_READ_SECONDS, BENCH_READ_ROUNDS, BENCH_READ_ROUTES, BENCH_READ_KEEP, BENCH_READ_PROFILE: as run.ts
 * Uses DATABASE_URL (a server URL) when set, else an embedded PostgreSQL; needs `wrk` on PATH.
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { writeDeployment } from "../../chain/deployments";
import { devnetAccount } from "../../devnet/accounts";
import { deployProtocol } from "../../devnet/deploy";
import { DEFAULT_MAX_OLD_SPACE_MB, type Indexer } from "../../ops/indexer";
import { createDatabase, dropDatabase, urlWithDatabase } from "../../ops/postgres";
import { benchPostgres } from "../postgres";
import { startBenchAnvil } from "../anvil";
import { GAS, generateMarket } from "../chain-gen";
import { startBenchApi, startBenchIndexer } from "./api";
import type { BenchData } from "./data";
import { ownerSubject, publishMarketMetadata } from "./honest-metadata";
import { measureRoutes, printTable, startReferenceServers } from "./measure";
import { ROUTE_PATHS, routeHeaders, type ReferenceApp, type RouteCase } from "./routes";

const PONDER_SCHEMA = "bench_honest";
/** Routes whose fixtures only the generated data has. */
const SKIPPED = ["dataset", "datasetGzip"];
const OWNERS = 10;
const VOTERS = 10;
/** Vote rounds spread over this many epochs; pods stay valid for all of them. */
const EPOCHS = 10;

const env = (name: string, fallback: string) => process.env[name] || fallback;
const podCount = Number(env("BENCH_HONEST_PODS", "10000"));
const voteCount = Number(env("BENCH_HONEST_VOTES", String(podCount * 10)));
const datanets = Number(env("BENCH_HONEST_DATANETS", "10"));
const txPerBlock = Number(env("BENCH_HONEST_TX_PER_BLOCK", "200"));
const concurrency = Number(env("BENCH_HONEST_CONCURRENCY", "16"));
/** The indexer's V8 old space: its default, as in production, unless set. */
const indexerHeapMb = env("INDEXER_MAX_OLD_SPACE_MB", String(DEFAULT_MAX_OLD_SPACE_MB));
const seconds = Number(env("BENCH_READ_SECONDS", "5"));
const rounds = Number(env("BENCH_READ_ROUNDS", "2"));
const only = process.env.BENCH_READ_ROUTES?.split(",");

const secondsSince = (t: number) => (performance.now() - t) / 1000;

/** One request per route: each must answer 200; prints its size and the length of its first list (a page of nothing would measure little). */
async function checkAnswers(routes: RouteCase[], data: BenchData, urls: { platform: string; stack: Record<ReferenceApp, string> }, cookieToken: string) {
  const parts: string[] = [];
  for (const route of routes) {
    const response = await fetch(`${route.stack ? urls.stack[route.stack] : urls.platform}${route.path(data)}`, { headers: routeHeaders(route, cookieToken) });
    const text = await response.text();
    if (response.status !== 200) throw new Error(`${route.name}: ${response.status} ${text.slice(0, 200)}`);
    const body = JSON.parse(text) as { data?: Record<string, unknown> };
    const list = Object.entries(body.data ?? {}).find(([, v]) => Array.isArray(v)) as [string, unknown[]] | undefined;
    parts.push(`${route.name} ${(text.length / 1024).toFixed(1)} KB${list ? ` (${list[1].length} ${list[0]})` : ""}`);
  }
  console.log(`first answers (all 200): ${parts.join(", ")}`);
}

/** Rows of the indexed views and of the off-chain tables, and which tables autovacuum has analyzed. */
async function dataSummary(databaseUrl: string) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const count = async (sql: string) => Number((await client.query<{ n: string }>(sql)).rows[0]!.n);
    const analyzed = await client.query<{ relname: string }>(
      `SELECT relname FROM pg_stat_user_tables WHERE (last_autoanalyze IS NOT NULL OR last_analyze IS NOT NULL)
         AND schemaname IN ($1, 'offchain') AND relname IN ('pod', 'vote', 'datanet', 'pod_drafts', 'subnet_drafts', 'users') ORDER BY relname`,
      [PONDER_SCHEMA],
    );
    return {
      pods: await count("SELECT count(*) AS n FROM chain.pod"),
      votes: await count("SELECT count(*) AS n FROM chain.vote"),
      datanets: await count("SELECT count(*) AS n FROM chain.datanet"),
      linkedPods: await count("SELECT count(*) AS n FROM offchain.pod_drafts WHERE token_id IS NOT NULL"),
      users: await count("SELECT count(*) AS n FROM offchain.users"),
      analyzed: analyzed.rows.map((r) => r.relname),
    };
  } finally {
    await client.end();
  }
}

async function main() {
  const started = performance.now();
  console.log(
    `read-path bench, honest path: ${os.cpus().length} × ${os.cpus()[0]?.model ?? "cpu"}, load average ${os.loadavg().map((l) => l.toFixed(2)).join(" ")} (shared machine: other work competes)`,
  );
  const { serverUrl, stop: stopPostgres } = await benchPostgres();
  const dbName = `bench_honest_${Date.now()}`;
  await createDatabase(serverUrl, dbName);
  const databaseUrl = urlWithDatabase(serverUrl, dbName);
  const tmp = mkdtempSync(path.join(os.tmpdir(), "bench-honest-"));
  const owners = Array.from({ length: OWNERS }, (_, i) => devnetAccount(10 + i).address);
  const voters = Array.from({ length: VOTERS }, (_, i) => devnetAccount(10 + OWNERS + i).address);
  // room for txPerBlock transactions of the gas chain-gen declares, and more
  const anvil = await startBenchAnvil({ accounts: 10 + OWNERS + VOTERS, gasLimit: BigInt(Math.max(txPerBlock, VOTERS * datanets)) * GAS * 2n });
  let indexer: Indexer | undefined;
  let api: Awaited<ReturnType<typeof startBenchApi>>["api"] | undefined;
  let references: Awaited<ReturnType<typeof startReferenceServers>> | undefined;
  try {
    const deployment = await deployProtocol(anvil.rpcUrl, { podValidityPeriod: EPOCHS });
    const deploymentsFile = path.join(tmp, "deployments.json");
    writeDeployment({ ...deployment, rpcUrl: anvil.rpcUrl }, deploymentsFile);

    let t = performance.now();
    const market = await generateMarket(anvil.rpcUrl, deployment, { pods: podCount, votes: voteCount, datanets, epochs: EPOCHS, owners, voters, txPerBlock });
    const chainSeconds = secondsSince(t);
    console.log(
      `chain: ${market.pods.length} pods, ${market.votes} votes, ${market.subnets.length} datanets in ${market.transactions} transactions, ${market.blocks} blocks (final epoch ${market.finalEpoch}): ${chainSeconds.toFixed(0)} s`,
    );

    t = performance.now();
    indexer = await startBenchIndexer({
      databaseUrl,
      schema: PONDER_SCHEMA,
      rpcUrl: anvil.rpcUrl,
      deploymentsFile,
      tmp,
      env: { INDEXER_MAX_OLD_SPACE_MB: indexerHeapMb },
    });
    await indexer.waitUntilReady(60 * 60_000);
    await indexer.waitForBlock(market.head, 5 * 60_000);
    const indexSeconds = secondsSince(t);
    console.log(`indexing: ready and at the head in ${indexSeconds.toFixed(0)} s (indexer heap ${indexerHeapMb} MB)`);

    process.env.DEPLOYMENTS_FILE = deploymentsFile;
    const bench = await startBenchApi(databaseUrl, tmp);
    api = bench.api;
    t = performance.now();
    const metadata = await publishMarketMetadata(api.urls.platform, market, { owners, primaryToken: deployment.contracts.DemoToken.address, concurrency });
    const metadataSeconds = secondsSince(t);
    console.log(`metadata: ${metadata.requests} API requests, ${concurrency} in flight: ${metadataSeconds.toFixed(0)} s`);

    // as in run.ts, nothing is indexed during the load
    await indexer.stop();
    indexer = undefined;
    const summary = await dataSummary(databaseUrl);
    if (summary.pods !== podCount || summary.linkedPods !== podCount || summary.votes !== market.votes) {
      throw new Error(`indexed ${summary.pods} pods and ${summary.votes} votes, ${summary.linkedPods} pods linked: expected ${podCount}, ${market.votes}`);
    }
    const data: BenchData = { pods: summary.pods, votes: summary.votes, datanets: summary.datanets, users: summary.users };
    const dataLine = `${data.pods} public pods, ${data.votes} votes, ${data.datanets} datanets, ${data.users} users (indexed from anvil, metadata through the API); tables analyzed by autovacuum by now: ${summary.analyzed.join(", ") || "none"}`;
    console.log(`\ndata: ${dataLine}`);

    references = await startReferenceServers(bench.config, databaseUrl);
    const routes = ROUTE_PATHS.filter((r) => !SKIPPED.includes(r.name) && (!only || only.includes(r.name)));
    const cookieToken = metadata.sessions.tokenOf(ownerSubject(0))!;
    await checkAnswers(routes, data, { platform: api.urls.platform, stack: references.stackUrls }, cookieToken);
    const rows = await measureRoutes({
      routes,
      data,
      scale: data.pods,
      label: "",
      platformUrl: api.urls.platform,
      stackUrls: references.stackUrls,
      bareUrl: references.bareUrl,
      cookieToken,
      seconds,
      rounds,
    });
    printTable(
      `honest path: routes at 50 connections, ${seconds} s each (bare = GET /json of a bare Hono app in the same process, measured just before each route); ${os.cpus().length} × ${os.cpus()[0]?.model ?? "cpu"}; ${dataLine}`,
      rows,
    );
    console.log(`skipped: ${SKIPPED.join(", ")} (generated-only fixture); mePods = one owner's ${Math.ceil(podCount / OWNERS)} pods`);
    console.log(
      `phases: chain generation ${chainSeconds.toFixed(0)} s (${market.transactions} transactions, ${market.blocks} blocks), indexing ${indexSeconds.toFixed(0)} s (heap ${indexerHeapMb} MB), metadata ${metadataSeconds.toFixed(0)} s (${metadata.requests} requests); total ${secondsSince(started).toFixed(0)} s`,
    );
  } finally {
    await indexer?.stop().catch(() => undefined);
    await api?.close().catch(() => undefined);
    await references?.close().catch(() => undefined);
    await anvil.stop().catch(() => undefined);
    if (process.env.BENCH_READ_KEEP === "1") console.log(`kept database ${dbName}`);
    else await dropDatabase(serverUrl, dbName).catch(() => undefined);
    rmSync(tmp, { recursive: true, force: true });
    await stopPostgres();
  }
}

export { main as runHonestReadBench };

if (import.meta.url === `file://${process.argv[1]}`) {
  await main();
}
