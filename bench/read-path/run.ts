/**
 * Read-path benchmark (issue 12): the real API (startApiServer) against a BENCHMARK DATABASE of
 * generated rows (bench/read-path/data.ts), loaded with wrk beside a bare Hono route served by the
 * same process. Prints each route's req/s, p50/p99, the bare route's, the ratio and the growth of
 * the per-request cost from the small to the large size, then a 200-connection mix.
 *
 *   npx tsx bench/read-path/run.ts
 *   BENCH_READ_SCALES=1000,100000   sizes in public pods (10 votes each)        [1000,100000]
 *   BENCH_READ_SECONDS=5            seconds per route and size, 50 connections
 *   BENCH_READ_MIX_SECONDS=60       seconds of the 200-connection mix (0: skip)
 *   BENCH_READ_BLOCK_MS=2000        during the mix, an "indexed block" (vote total + checkpoint) this often
 *   BENCH_READ_ANALYZE=1            also measure after ANALYZE (default: statistics never gathered)
 *   BENCH_READ_ROUTES=page1,deep    only these routes
 *   BENCH_READ_KEEP=1               keep the benchmark database (its name is printed)
 *   BENCH_READ_PROFILE=dir          a CPU profile of this process during each route's load, as
 *                                   dir/<size>-<route>.cpuprofile (summary: profile-summary.ts)
 * Uses DATABASE_URL (a server URL) when set, else an embedded PostgreSQL; needs `wrk` on PATH.
 */
import { serve, type ServerType } from "@hono/node-server";
import { Session } from "node:inspector/promises";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { Hono } from "hono";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { writeDeployment } from "../../chain/deployments";
import { loadConfig } from "../../api/config";
import { localIdpKeyPair, signLocalIdpToken } from "../../api/http/auth/idp-cookie";
import { runMigrations } from "../../api/db/migrate";
import { startApiServer } from "../../api/server";
import { startAnvil } from "../../devnet/anvil";
import { deployProtocol } from "../../devnet/deploy";
import { startIndexer } from "../../ops/indexer";
import { createDatabase, dropDatabase, prepareDirectoryForPostgres, startEmbeddedPostgres, urlWithDatabase } from "../../ops/postgres";
import { analyze, disableAutovacuum, grow, POWER_USER_SUB, type BenchData } from "./data";
import { runWrk, type LoadResult } from "./wrk";

const PONDER_SCHEMA = "bench_read";
const CONNECTIONS = 50;
const MIX_CONNECTIONS = 200;

interface RouteCase {
  name: string;
  path: (data: BenchData) => string;
  cookie?: boolean;
}

const ROUTES: RouteCase[] = [
  { name: "page1", path: () => "/api/v1/public/pods?page=1&limit=10" },
  // page 5,000 of limit 10, or the last page when there are fewer pods
  { name: "deep", path: (d) => `/api/v1/public/pods?page=${Math.min(5_000, Math.ceil(d.pods / 10))}&limit=10` },
  { name: "search", path: () => "/api/v1/public/pods?page=1&limit=10&search=bravo" },
  { name: "subnet", path: () => "/api/v1/public/pods?page=1&limit=10&filters[subnet]=3" },
  { name: "epoch", path: () => "/api/v1/public/pods?page=1&limit=10&filters[currentEpoch]=5" },
  { name: "pod", path: () => "/api/v1/public/pods/5" },
  { name: "subnets", path: () => "/api/v1/public/subnets" },
  { name: "podVotes", path: () => "/api/v1/public/pods/5/votes/epochs/3" },
  { name: "stats", path: () => "/api/v1/stats" },
  { name: "mePods", path: () => "/api/v1/me/pods", cookie: true },
];

const env = (name: string, fallback: string) => process.env[name] || fallback;
const scales = env("BENCH_READ_SCALES", "1000,100000").split(",").map(Number);
const seconds = Number(env("BENCH_READ_SECONDS", "5"));
const mixSeconds = Number(env("BENCH_READ_MIX_SECONDS", "60"));
const blockMs = Number(env("BENCH_READ_BLOCK_MS", "2000"));
const only = process.env.BENCH_READ_ROUTES?.split(",");
const routes = only ? ROUTES.filter((r) => only.includes(r.name)) : ROUTES;

function listen(fetch: (req: Request) => Response | Promise<Response>): Promise<ServerType> {
  return new Promise((resolve) => {
    const server = serve({ fetch, port: 0 }, () => resolve(server));
  });
}

const fmt = (n: number, digits = 0) => (Number.isFinite(n) ? n.toFixed(digits) : "-");

interface Row {
  scale: number;
  route: string;
  path: string;
  result: LoadResult;
  bare: LoadResult;
}

function printTable(title: string, rows: Row[]) {
  console.log(`\n${title}`);
  console.log("| size | route | req/s | p50 ms | p99 ms | errors | bare req/s | bare p99 | ÷ bare | p99 ÷ bare p99 |");
  console.log("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|");
  for (const r of rows) {
    console.log(
      `| ${r.scale} | ${r.route} | ${fmt(r.result.rps)} | ${fmt(r.result.p50Ms, 2)} | ${fmt(r.result.p99Ms, 2)} | ${r.result.errors} | ${fmt(r.bare.rps)} | ${fmt(r.bare.p99Ms, 2)} | ${fmt(r.result.rps / r.bare.rps, 3)} | ${fmt(r.result.p99Ms / r.bare.p99Ms, 2)} |`,
    );
  }
}

function printGrowth(rows: Row[], small: number, large: number) {
  console.log(`\nper-request cost growth ${small} → ${large} pods ((req/s ÷ bare) at ${small} ÷ (req/s ÷ bare) at ${large}; target ≤ 1.3)`);
  console.log("| route | growth |");
  console.log("|---|---:|");
  for (const route of routes) {
    const a = rows.find((r) => r.scale === small && r.route === route.name);
    const b = rows.find((r) => r.scale === large && r.route === route.name);
    if (!a || !b) continue;
    console.log(`| ${route.name} | ${fmt(a.result.rps / a.bare.rps / (b.result.rps / b.bare.rps), 2)} |`);
  }
}

/**
 * Writes like the indexer's block commit (in one transaction: the newest pod's up-vote total and
 * the checkpoint), then polls `pageUrl` until the new total shows; returns the delays.
 */
function blockProducer(databaseUrl: string, pageUrl: string, everyMs: number) {
  const delays: number[] = [];
  let stopped = false;
  const run = (async () => {
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      let n = 0;
      while (!stopped) {
        await new Promise((resolve) => setTimeout(resolve, everyMs));
        if (stopped) break;
        const before = ((await (await fetch(pageUrl)).json()) as PageBody).data.pods[0]?.cumulativeUpVotesVolume;
        n++;
        await client.query("BEGIN");
        await client.query("SET LOCAL session_replication_role = replica");
        await client.query(
          `UPDATE "${PONDER_SCHEMA}".pod SET cumulative_up_votes = cumulative_up_votes + 1000000000000000000 WHERE id = (SELECT max(id) FROM "${PONDER_SCHEMA}".pod)`,
        );
        await client.query(`UPDATE "${PONDER_SCHEMA}"._ponder_checkpoint SET latest_checkpoint = lpad($1, 75, '9')`, [String(n)]);
        await client.query("COMMIT");
        const committed = performance.now();
        for (;;) {
          const now = ((await (await fetch(pageUrl)).json()) as PageBody).data.pods[0]?.cumulativeUpVotesVolume;
          if (now !== before) break;
          if (performance.now() - committed > 10_000) break;
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
        delays.push(performance.now() - committed);
      }
    } finally {
      await client.end();
    }
  })();
  return {
    async stop() {
      stopped = true;
      await run;
      return delays;
    },
  };
}

type PageBody = { data: { pods: Array<{ cumulativeUpVotesVolume: string }> } };

const profileDir = process.env.BENCH_READ_PROFILE;

/** Runs `work` under the V8 CPU profiler when BENCH_READ_PROFILE is set (the API runs in this process). */
async function profiled<T>(name: string, work: () => Promise<T>): Promise<T> {
  if (!profileDir) return work();
  const session = new Session();
  session.connect();
  await session.post("Profiler.enable");
  await session.post("Profiler.setSamplingInterval", { interval: 200 });
  await session.post("Profiler.start");
  try {
    return await work();
  } finally {
    const { profile } = await session.post("Profiler.stop");
    mkdirSync(profileDir, { recursive: true });
    writeFileSync(path.join(profileDir, `${name}.cpuprofile`), JSON.stringify(profile));
    session.disconnect();
  }
}

async function main() {
  const started = Date.now();
  console.log(
    `read-path bench: ${os.cpus().length} × ${os.cpus()[0]?.model ?? "cpu"}, load average ${os.loadavg().map((l) => l.toFixed(2)).join(" ")} (shared machine: other work competes)`,
  );
  let serverUrl = process.env.DATABASE_URL;
  let stopPostgres = async () => undefined as unknown;
  if (!serverUrl) {
    const root = mkdtempSync(path.join(os.tmpdir(), "bench-pg-"));
    prepareDirectoryForPostgres(root);
    const server = await startEmbeddedPostgres({ dataDir: path.join(root, "data"), database: "postgres" });
    serverUrl = server.url;
    stopPostgres = server.stop;
  }
  const dbName = `bench_readpath_${Date.now()}`;
  await createDatabase(serverUrl, dbName);
  const databaseUrl = urlWithDatabase(serverUrl, dbName);
  const tmp = mkdtempSync(path.join(os.tmpdir(), "bench-read-"));

  // Ponder creates its tables and the `chain` views on a freshly deployed devnet, then stops.
  const anvil = await startAnvil();
  const deployment = await deployProtocol(anvil.rpcUrl);
  const deploymentsFile = path.join(tmp, "deployments.json");
  writeDeployment({ ...deployment, rpcUrl: anvil.rpcUrl }, deploymentsFile);
  const indexer = await startIndexer({
    databaseUrl,
    schema: PONDER_SCHEMA,
    viewsSchema: "chain",
    rpcUrl: anvil.rpcUrl,
    deploymentsFile,
    logLevel: "warn",
    logFile: path.join(tmp, "indexer.log"),
  });
  await indexer.waitUntilReady(5 * 60_000);
  await indexer.stop();
  await runMigrations(databaseUrl);
  await disableAutovacuum(databaseUrl, PONDER_SCHEMA);
  console.log(`schema ready in ${((Date.now() - started) / 1000).toFixed(0)} s (indexer started once, stopped)`);

  const keyFile = path.join(tmp, "idp-key.json");
  process.env.IDP_LOCAL_KEY_FILE = keyFile;
  process.env.DEPLOYMENTS_FILE = deploymentsFile;
  process.env.STATS_API_KEYS ??= "bench-stats-key";
  const { privateJwk } = await localIdpKeyPair(keyFile);
  const token = await signLocalIdpToken({ sub: POWER_USER_SUB, username: "user 1" }, { privateJwk });

  const config = loadConfig({
    ...process.env,
    DATABASE_URL: databaseUrl,
    PONDER_VIEWS_SCHEMA: "chain",
    LOG_LEVEL: "silent",
    PLATFORM_PORT: "0",
    CHAT_PORT: "0",
    EVAL_PORT: "0",
    // the limiter runs on every request, but every request comes from one IP
    RATE_LIMIT_POINTS: "1000000000",
  });
  const api = await startApiServer(config);
  const bareApp = new Hono();
  bareApp.get("/json", (c) => c.json({ hello: "world" }));
  const bareServer = await listen(bareApp.fetch);
  const bareUrl = `http://127.0.0.1:${(bareServer.address() as AddressInfo).port}`;

  const load = (baseUrl: string, paths: string[], headers?: Record<string, string>, connections = CONNECTIONS, secs = seconds) =>
    runWrk({ baseUrl, paths, connections, seconds: secs, headers });
  const bare = () => load(bareUrl, ["/json"]);

  let data: BenchData = { pods: 0, votes: 0, datanets: 0, users: 0 };
  const rows: Row[] = [];
  const measure = async (label: string, scale: number) => {
    for (const route of routes) {
      const p = route.path(data);
      const headers = route.cookie ? { Cookie: `idp-token=${token}` } : undefined;
      // one request (a cold miss), a warm-up (caches, JIT), the bare route just before, then the route
      await (await fetch(`${api.urls.platform}${p}`, { headers })).arrayBuffer();
      await load(api.urls.platform, [p], headers, 10, 1);
      const bareBefore = await bare();
      const result = await profiled(`${scale}-${route.name}${label.replace(/\W+/g, "")}`, () => load(api.urls.platform, [p], headers));
      rows.push({ scale, route: `${route.name}${label}`, path: p, result, bare: bareBefore });
      console.log(`  ${scale} ${route.name}${label}: ${fmt(result.rps)} req/s, p50 ${fmt(result.p50Ms, 2)} ms, p99 ${fmt(result.p99Ms, 2)} ms, errors ${result.errors} (bare ${fmt(bareBefore.rps)} req/s)`);
    }
  };

  for (const scale of scales) {
    const t = Date.now();
    data = await grow(databaseUrl, PONDER_SCHEMA, data, scale);
    console.log(
      `\ndata (generated, benchmark database): ${data.pods} public pods, ${data.votes} votes, ${data.datanets} datanets, ${data.users} users (+${((Date.now() - t) / 1000).toFixed(0)} s); no ANALYZE`,
    );
    await measure("", scale);
  }
  const largest = scales[scales.length - 1]!;

  if (mixSeconds > 0) {
    const mixPaths = ROUTES.filter((r) => !r.cookie).map((r) => r.path(data));
    const rssBefore = process.memoryUsage().rss / 2 ** 20;
    // like Base: a block every BENCH_READ_BLOCK_MS changes an indexed vote total and the checkpoint
    const blocks = blockProducer(databaseUrl, `${api.urls.platform}${ROUTES[0]!.path(data)}`, blockMs);
    const loopDelay = monitorEventLoopDelay({ resolution: 10 });
    loopDelay.enable();
    const gcBefore = performance.eventLoopUtilization();
    const result = await load(api.urls.platform, mixPaths, undefined, MIX_CONNECTIONS, mixSeconds);
    loopDelay.disable();
    const utilization = performance.eventLoopUtilization(gcBefore).utilization;
    const visible = await blocks.stop();
    const memory = process.memoryUsage().rss / 2 ** 20;
    console.log(
      `\nmix of ${mixPaths.length} public routes, ${MIX_CONNECTIONS} connections, ${mixSeconds} s at ${largest} pods, an indexed block every ${blockMs} ms: ${fmt(result.rps)} req/s, p50 ${fmt(result.p50Ms, 2)} ms, p99 ${fmt(result.p99Ms, 2)} ms, errors ${result.errors} (non-2xx ${result.non2xx}); process RSS ${rssBefore.toFixed(0)} → ${memory.toFixed(0)} MB (target: 0 errors, p99 ≤ 250 ms)`,
    );
    console.log(
      `event loop during the mix: utilization ${(utilization * 100).toFixed(0)}%, delay p50 ${fmt(loopDelay.percentile(50) / 1e6, 1)} ms, p99 ${fmt(loopDelay.percentile(99) / 1e6, 1)} ms, max ${fmt(loopDelay.max / 1e6, 1)} ms`,
    );
    if (visible.length > 0) {
      const sorted = [...visible].sort((a, b) => a - b);
      console.log(
        `indexed vote visible in page 1 after: median ${fmt(sorted[Math.floor(sorted.length / 2)]!, 0)} ms, max ${fmt(sorted.at(-1)!, 0)} ms over ${sorted.length} blocks (target ≤ 1,000 ms)`,
      );
    }
  }

  if (process.env.BENCH_READ_ANALYZE === "1") {
    await analyze(databaseUrl);
    console.log(`\nafter ANALYZE at ${largest} pods`);
    await measure(" (analyzed)", largest);
  }

  printTable(`routes at ${CONNECTIONS} connections, ${seconds} s each (bare = GET /json of a bare Hono app in the same process, measured just before each route)`, rows);
  if (scales.length > 1) printGrowth(rows, scales[0]!, largest);
  console.log(`\ntotal ${((Date.now() - started) / 1000).toFixed(0)} s`);

  await api.close();
  await new Promise((resolve) => bareServer.close(resolve));
  await anvil.stop();
  if (process.env.BENCH_READ_KEEP === "1") console.log(`kept database ${dbName}`);
  else await dropDatabase(serverUrl, dbName).catch(() => undefined);
  await stopPostgres();
}

export { main as runReadPathBench };

if (import.meta.url === `file://${process.argv[1]}`) {
  await main();
}
