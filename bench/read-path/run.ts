/**
 * Read-path benchmark (issue 12): the real API (startApiServer) against a BENCHMARK DATABASE of
 * generated rows (bench/read-path/data.ts), loaded with wrk beside a bare Hono route served by the
 * same process. Prints each route's req/s, p50/p99, the bare route's, the ratio and the growth of
 * the per-request cost from the small to the large size, then a 200-connection mix.
 *
 *   npx tsx bench/read-path/run.ts
 *   BENCH_READ_SCALES=1000,100000   sizes in public pods (10 votes each)        [1000,100000]
 *   BENCH_READ_SECONDS=5            seconds per route and size, 50 connections
 *   BENCH_READ_ROUNDS=2             the bare route and the route in turn, this many times (their
 *                                   seconds split evenly): the ratio sees the same machine load
 *   BENCH_READ_MIX_SECONDS=60       seconds of the 200-connection mix (0: skip)
 *   BENCH_READ_BLOCK_MS=2000        during the mix, an "indexed block" (vote total + checkpoint) this often
 *   BENCH_READ_MINT_EVERY=0         during the mix, every this many blocks also an indexed mint (a
 *                                   change of the list's set: its totals and boundaries; 0: none)
 *   BENCH_READ_ANALYZE=1            also measure after ANALYZE (default: statistics never gathered)
 *   BENCH_READ_ROUTES=page1,deep    only these routes, in this order (a name may repeat)
 *   BENCH_READ_KEEP=1               keep the benchmark database and its folder (both printed)
 *   BENCH_READ_PROFILE=dir          a CPU profile of this process during each route's load, as
 *                                   dir/<size>-<route>.cpuprofile (summary: profile-summary.ts)
 * Uses DATABASE_URL (a server URL) when set, else an embedded PostgreSQL; needs `wrk` on PATH.
 */
import { monitorEventLoopDelay } from "node:perf_hooks";
import { benchTempDir } from "../temp-dir";
import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { writeDeployment } from "../../chain/deployments";
import { runMigrations } from "../../api/db/migrate";
import { startAnvil } from "../../devnet/anvil";
import { deployProtocol } from "../../devnet/deploy";
import { createDatabase, dropDatabase, urlWithDatabase } from "../../ops/postgres";
import { benchPostgres } from "../postgres";
import { startBenchApi, startBenchIndexer } from "./api";
import { indexedMint } from "./listing-change";
import { analyze, disableAutovacuum, grow, type BenchData } from "./data";
import { CONNECTIONS, fmt, load, measureRoutes, printTable, startReferenceServers, type Row } from "./measure";
import { ROUTE_PATHS } from "./routes";
import { assertWrkInstalled } from "./wrk";

export const PONDER_SCHEMA = "bench_read";
const MIX_CONNECTIONS = 200;

const env = (name: string, fallback: string) => process.env[name] || fallback;
const scales = env("BENCH_READ_SCALES", "1000,100000").split(",").map(Number);
const seconds = Number(env("BENCH_READ_SECONDS", "5"));
const mixSeconds = Number(env("BENCH_READ_MIX_SECONDS", "60"));
const blockMs = Number(env("BENCH_READ_BLOCK_MS", "2000"));
const mintEvery = Number(env("BENCH_READ_MINT_EVERY", "0"));
const keep = process.env.BENCH_READ_KEEP === "1";
const only = process.env.BENCH_READ_ROUTES?.split(",");
const rounds = Number(env("BENCH_READ_ROUNDS", "2"));

// in the order given, repeats allowed (page1,deep,page1: does a route's place in the run matter?)
const routes = only ? only.map((name) => ROUTE_PATHS.find((r) => r.name === name)).filter((r) => r !== undefined) : ROUTE_PATHS;

function printGrowth(rows: Row[], small: number, large: number) {
  console.log(
    `\nper-request cost growth ${small} → ${large} pods ((req/s ÷ bare) at ${small} ÷ (req/s ÷ bare) at ${large}; target ≤ 1.3)`,
  );
  console.log("| route | growth (req/s) | growth (CPU µs/req ÷ bare's) |");
  console.log("|---|---:|---:|");
  for (const route of routes) {
    const a = rows.find((r) => r.scale === small && r.route === route.name);
    const b = rows.find((r) => r.scale === large && r.route === route.name);
    if (!a || !b) continue;
    const cpu = (r: Row) => (r.result.cpuUs ?? NaN) / (r.bare.cpuUs ?? NaN);
    console.log(
      `| ${route.name} | ${fmt(a.result.rps / a.bare.rps / (b.result.rps / b.bare.rps), 2)} | ${fmt(cpu(b) / cpu(a), 2)} |`,
    );
  }
}

/**
 * Writes like the indexer's block commit (in one transaction: the newest pod's up-vote total and
 * the checkpoint), then polls `pageUrl` until the new total shows; returns the delays.
 */
export function blockProducer(databaseUrl: string, pageUrl: string, everyMs: number, mintEvery: number) {
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
        const top = ((await (await fetch(pageUrl)).json()) as PageBody).data.pods[0];
        const before = top?.cumulativeUpVotesVolume;
        n++;
        if (mintEvery > 0 && n % mintEvery === 0) await indexedMint(client, PONDER_SCHEMA);
        await client.query("BEGIN");
        await client.query("SET LOCAL session_replication_role = replica");
        await client.query(
          // the pod on top of page 1 (the newest listed: a bench mint adds an unlisted one above it)
          `UPDATE "${PONDER_SCHEMA}".pod SET cumulative_up_votes = cumulative_up_votes + 1000000000000000000 WHERE id = $1`,
          [String(top?.tokenId ?? 0)],
        );
        await client.query(`UPDATE "${PONDER_SCHEMA}"._ponder_checkpoint SET latest_checkpoint = lpad($1, 75, '9')`, [
          String(n),
        ]);
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

type PageBody = { data: { pods: Array<{ tokenId: number; cumulativeUpVotesVolume: string }> } };

async function main() {
  assertWrkInstalled();
  const started = Date.now();
  console.log(
    `read-path bench: ${os.cpus().length} × ${os.cpus()[0]?.model ?? "cpu"}, load average ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")} (shared machine: other work competes)`,
  );
  const { serverUrl, stop: stopPostgres } = await benchPostgres();
  const dbName = `bench_readpath_${Date.now()}`;
  await createDatabase(serverUrl, dbName);
  const databaseUrl = urlWithDatabase(serverUrl, dbName);
  let anvil: Awaited<ReturnType<typeof startAnvil>> | undefined;
  let runningIndexer: Awaited<ReturnType<typeof startBenchIndexer>> | undefined;
  let runningApi: Awaited<ReturnType<typeof startBenchApi>>["api"] | undefined;
  let runningReferences: Awaited<ReturnType<typeof startReferenceServers>> | undefined;
  let keptTmp: string | undefined;
  // whatever happens, nothing is left running and the benchmark database goes
  try {
    // a kept database keeps its folder too (deployments.json, the IdP key): uncached.ts needs both
    const tmp = keep ? mkdtempSync(path.join(os.tmpdir(), "bench-read-")) : benchTempDir("bench-read-");
    keptTmp = tmp;

    // Ponder creates its tables and the `chain` views on a freshly deployed devnet, then stops.
    anvil = await startAnvil();
    const deployment = await deployProtocol(anvil.rpcUrl);
    const deploymentsFile = path.join(tmp, "deployments.json");
    writeDeployment({ ...deployment, rpcUrl: anvil.rpcUrl }, deploymentsFile);
    const indexer = await startBenchIndexer({
      databaseUrl,
      schema: PONDER_SCHEMA,
      rpcUrl: anvil.rpcUrl,
      deploymentsFile,
      tmp,
    });
    await indexer.waitUntilReady(5 * 60_000);
    runningIndexer = indexer; // kept running: its GraphQL is the `ponderGraphql` reference (an idle chain: it writes nothing)
    await runMigrations(databaseUrl);
    await disableAutovacuum(databaseUrl, PONDER_SCHEMA);
    console.log(`schema ready in ${((Date.now() - started) / 1000).toFixed(0)} s (indexer started, serving its GraphQL)`);

    process.env.DEPLOYMENTS_FILE = deploymentsFile;
    const { api, config, token } = await startBenchApi(databaseUrl, tmp);
    runningApi = api;
    const references = await startReferenceServers(config, databaseUrl);
    runningReferences = references;

    let data: BenchData = { pods: 0, votes: 0, datanets: 0, users: 0 };
    const rows: Row[] = [];
    const measure = async (label: string, scale: number) => {
      // every public route once under load first: whichever route came first paid the warm-up
      // (the cache path compiled, the heap and PostgreSQL settled after the data load), ~20% of
      // its CPU a request (deep, page1, deep, page1 at 1k pods: 100, 81, 84, 75 µs; page1 first: 73 against deep's 62)
      const warmPaths = ROUTE_PATHS.filter((r) => !r.cookie && !r.agent && !r.stack).map((r) => r.path(data));
      await load(api.urls.platform, warmPaths, undefined, CONNECTIONS, 3);
      const measured = await measureRoutes({
        routes,
        data,
        scale,
        label,
        platformUrl: api.urls.platform,
        stackUrls: { ...references.stackUrls, ponder: runningIndexer!.url },
        bareUrl: references.bareUrl,
        cookieToken: token,
        seconds,
        rounds,
      });
      rows.push(...measured);
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
      const mixPaths = ROUTE_PATHS.filter((r) => !r.cookie && !r.agent && !r.stack).map((r) => r.path(data));
      const rssBefore = process.memoryUsage().rss / 2 ** 20;
      // like Base: a block every BENCH_READ_BLOCK_MS changes an indexed vote total and the checkpoint
      const blocks = blockProducer(
        databaseUrl,
        `${api.urls.platform}${ROUTE_PATHS.find((r) => r.name === "page1")!.path(data)}`,
        blockMs,
        mintEvery,
      );
      const loopDelay = monitorEventLoopDelay({ resolution: 10 });
      loopDelay.enable();
      const gcBefore = performance.eventLoopUtilization();
      // memory along the way, not only at the ends: flat means it stops growing, whatever V8 takes first
      const rssSamples: number[] = [];
      const sampler = setInterval(() => rssSamples.push(process.memoryUsage().rss / 2 ** 20), (mixSeconds * 1000) / 6);
      const result = await load(api.urls.platform, mixPaths, undefined, MIX_CONNECTIONS, mixSeconds);
      clearInterval(sampler);
      loopDelay.disable();
      const utilization = performance.eventLoopUtilization(gcBefore).utilization;
      const visible = await blocks.stop();
      const memory = process.memoryUsage().rss / 2 ** 20;
      console.log(
        `\nmix of ${mixPaths.length} public routes, ${MIX_CONNECTIONS} connections, ${mixSeconds} s at ${largest} pods, an indexed block every ${blockMs} ms${mintEvery > 0 ? ` (a mint every ${mintEvery})` : ""}: ${fmt(result.rps)} req/s, p50 ${fmt(result.p50Ms, 2)} ms, p99 ${fmt(result.p99Ms, 2)} ms, errors ${result.errors} (non-2xx ${result.non2xx}); process RSS ${rssBefore.toFixed(0)} → ${memory.toFixed(0)} MB (target: 0 errors, p99 ≤ 250 ms)`,
      );
      console.log(`process RSS in sixths of the mix: ${rssSamples.map((mb) => mb.toFixed(0)).join(", ")} MB`);
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

    printTable(
      `routes at ${CONNECTIONS} connections (dataset 16), ${seconds} s each (bare = GET /json of a bare Hono app in the same process, measured just before each route)`,
      rows,
    );
    if (scales.length > 1) printGrowth(rows, scales[0]!, largest);
    console.log(`\ntotal ${((Date.now() - started) / 1000).toFixed(0)} s`);
  } finally {
    await runningApi?.close();
    await runningReferences?.close();
    await runningIndexer?.stop();
    await anvil?.stop();
    if (keep) console.log(`kept database ${dbName} and folder ${keptTmp} (BENCH_DB, BENCH_TMP of uncached.ts)`);
    else await dropDatabase(serverUrl, dbName).catch(() => undefined);
    await stopPostgres();
  }
}

export { main as runReadPathBench };

if (import.meta.url === `file://${process.argv[1]}`) {
  await main();
}
