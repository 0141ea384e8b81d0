/**
 * Uncached cost of each public read (what a response-cache miss costs, e.g. after every indexed
 * block): the real API with READ_CACHE=off against a kept benchmark database (BENCH_READ_KEEP=1
 * of run.ts), each route requested one at a time; prints the median and p90 of its latency.
 *
 *   BENCH_DB=postgres://…/bench_readpath_… BENCH_TMP=<the run's bench-read-… temp folder> npx tsx bench/read-path/uncached.ts
 *   BENCH_UNCACHED_N=30   requests per route
 *   BENCH_UNCACHED_COMMENT=1  a comment is stored before each request (an off-chain write that
 *                         leaves the pod list's stamp as it is: its totals and boundaries stay cached)
 *   BENCH_UNCACHED_CHANGE=ban|mint  a change of the listed set before each request, so each one
 *                         finds a new stamp: `ban` bans or unbans a listed pod's draft (off chain),
 *                         `mint` adds an indexed pod with its event, as the indexer would (on chain)
 */
import path from "node:path";
import pg from "pg";
import { startBenchApi } from "./api";
import { indexedMint } from "./listing-change";
import { PONDER_SCHEMA } from "./run";
import { ROUTE_PATHS, routeHeaders } from "./routes";

const databaseUrl = process.env.BENCH_DB!;
const tmp = process.env.BENCH_TMP!;
const n = Number(process.env.BENCH_UNCACHED_N || "30");
const pods = Number(process.env.BENCH_PODS || "100000");

process.env.DEPLOYMENTS_FILE = path.join(tmp, "deployments.json");
// the Platform API reads its own settings (READ_CACHE) from process.env
process.env.READ_CACHE ||= "off";
const { api, token } = await startBenchApi(databaseUrl, tmp);
const writer = process.env.BENCH_UNCACHED_COMMENT === "1" ? new pg.Client({ connectionString: databaseUrl }) : undefined;
await writer?.connect();
const comment = () =>
  writer?.query(
    `INSERT INTO offchain.comments (pod_id, user_id, comment) SELECT '5', id, 'bench' FROM offchain.users WHERE idp_subject = 'bench-user-2'`,
  );
const change = process.env.BENCH_UNCACHED_CHANGE;
const changer = change ? new pg.Client({ connectionString: databaseUrl }) : undefined;
await changer?.connect();
/** One change of the listed set (see BENCH_UNCACHED_CHANGE), committed before the request. */
const changeListedSet = async () => {
  if (!changer) return;
  if (change === "ban") await changer.query("UPDATE offchain.pod_drafts SET banned = NOT banned WHERE token_id = 5");
  else await indexedMint(changer, PONDER_SCHEMA);
};
const only = process.env.BENCH_READ_ROUTES?.split(",");
console.log("| route | first ms | median ms | p90 ms | status |");
console.log("|---|---:|---:|---:|---|");
for (const route of ROUTE_PATHS) {
  if ((only && !only.includes(route.name)) || route.stack) continue;
  const p = route.path({ pods, votes: pods * 10, datanets: Math.max(10, pods / 1000), users: pods / 100 });
  const headers = routeHeaders(route, token);
  const times: number[] = [];
  let status = 0;
  for (let i = 0; i < n; i++) {
    await comment();
    await changeListedSet();
    const t = performance.now();
    const res = await fetch(`${api.urls.platform}${p}`, { headers });
    await res.arrayBuffer();
    status = res.status;
    if (i === 1 && process.env.BENCH_DEBUG) console.log(route.name, res.headers.get("x-cache"), res.headers.get("content-length"));
    times.push(performance.now() - t);
  }
  const first = times[0]!;
  const sorted = times.slice(1).sort((a, b) => a - b);
  console.log(
    `| ${route.name} | ${first.toFixed(1)} | ${sorted[Math.floor(sorted.length / 2)]!.toFixed(1)} | ${sorted[Math.floor(sorted.length * 0.9)]!.toFixed(1)} | ${status} |`,
  );
}
await writer?.end();
await changer?.end();
await api.close();
process.exit(0);
