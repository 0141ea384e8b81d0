/**
 * The proxy bench (issue 38, `BENCH_SECTIONS=proxy npm run bench`): the read path's 200-connection
 * mix of public reads (bench/read-path: the same routes, the same generated benchmark database)
 * loaded with wrk
 *   - straight to one API replica (`npm run api` process): the baseline,
 *   - through nginx with 1 API replica behind it,
 *   - through nginx with 3 API replicas behind it,
 * in turn, slice by slice, in the same run (so each configuration sees the same machine load), and
 * with a read replica when one is given: the same three again with every replica's
 * DATABASE_READ_URL set to a hot standby of the bench's database.
 * Beside req/s and latency it counts CPU time per answered request of the API processes, of nginx's
 * workers and of the whole machine (/proc), so the per-core figure carries to a bigger machine.
 *
 *   BENCH_PROXY_PODS=100000        generated public pods (10 votes each; bench/read-path/data.ts)
 *   BENCH_PROXY_SECONDS=15         seconds of each slice of each configuration
 *   BENCH_PROXY_ROUNDS=2           slices per configuration (the configurations alternate)
 *   BENCH_PROXY_CONNECTIONS=200    wrk connections
 *   BENCH_PROXY_KEEPALIVE=256      idle upstream connections nginx keeps per worker (as ops/deploy/nginx.conf)
 *   BENCH_PROXY_KEEPALIVE_AB=32    also nginx with 1 and 3 replicas and this many (the sample's value before this bench)
 *   BENCH_READ_BLOCK_MS=2000       an "indexed block" (a vote total and the checkpoint) this often, as in the read-path mix
 *   BENCH_PROXY_STANDBY=1          run the bench's own primary and a pg_basebackup hot standby
 *                                  (test/support/pg-standby.ts) and add the "with read replica" configurations
 *   BENCH_READ_URL=postgres://…    instead: a hot standby of DATABASE_URL's server (its database name is
 *                                  replaced by the bench's); adds the same configurations
 *   BENCH_PROXY_GRAPHQL=1          also one GraphQL replica (`npm run graphql`) on the same data: a page of
 *                                  pods by POST /graphql, 50 connections, straight (0: skip)
 * Uses DATABASE_URL (a server URL) when set, else an embedded PostgreSQL; needs wrk and nginx.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { runMigrations } from "../api/db/migrate";
import { writeDeployment } from "../chain/deployments";
import { startAnvil } from "../devnet/anvil";
import { deployProtocol } from "../devnet/deploy";
import { createDatabase, dropDatabase, urlWithDatabase } from "../ops/postgres";
import {
  type ApiReplica,
  findNginx,
  freePort,
  type GraphqlReplica,
  killGraphqlReplica,
  startApiReplica,
  startGraphqlReplica,
  stopProcess,
} from "../test/scale/support";
import { type PgCluster, type PrimaryCluster, startPrimary, startStandby, waitForReplay } from "../test/support/pg-standby";
import { benchPostgres } from "./postgres";
import { startBenchIndexer } from "./read-path/api";
import { type BenchData, disableAutovacuum, grow } from "./read-path/data";
import { fmt } from "./read-path/measure";
import { ROUTE_PATHS } from "./read-path/routes";
import { blockProducer, PONDER_SCHEMA } from "./read-path/run";
import { assertWrkInstalled, type LoadResult, runWrk, spawnWrk } from "./read-path/wrk";
import { benchTempDir } from "./temp-dir";

const env = (name: string, fallback: string) => process.env[name] || fallback;
const PODS = Number(env("BENCH_PROXY_PODS", "100000"));
const SECONDS = Number(env("BENCH_PROXY_SECONDS", "15"));
const ROUNDS = Number(env("BENCH_PROXY_ROUNDS", "2"));
const CONNECTIONS = Number(env("BENCH_PROXY_CONNECTIONS", "200"));
const KEEPALIVE = Number(env("BENCH_PROXY_KEEPALIVE", "256"));
const KEEPALIVE_AB = Number(env("BENCH_PROXY_KEEPALIVE_AB", "0"));
const BLOCK_MS = Number(env("BENCH_READ_BLOCK_MS", "2000"));
const OWN_STANDBY = process.env.BENCH_PROXY_STANDBY === "1";
const READ_URL = process.env.BENCH_READ_URL;
const GRAPHQL = env("BENCH_PROXY_GRAPHQL", "1") === "1";
const GRAPHQL_QUERY = "{ pods(limit: 10, orderBy: \"id\", orderDirection: \"desc\") { totalCount items { id cumulativeUpVotes } } }";

const CLOCK_TICKS = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;

/** CPU seconds (user + system) a process has used so far. */
function cpuSeconds(pid: number): number {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  } catch {
    return 0; // gone
  }
}

/** The processes whose parent is `pid` (nginx's workers). */
function childrenOf(pid: number): number[] {
  const found: number[] = [];
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
      if (Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) === pid) found.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

/** Busy and total CPU seconds of the whole machine, all cores (/proc/stat). */
function machineCpu(): { busy: number; total: number } {
  const [, ...values] = fs.readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/);
  const n = values.map(Number);
  const total = n.slice(0, 8).reduce((a, b) => a + b, 0);
  const idle = n[3]! + n[4]!;
  return { busy: (total - idle) / CLOCK_TICKS, total: total / CLOCK_TICKS };
}

interface Nginx {
  port: number;
  process: ChildProcess;
  workers: number[];
  stop(): Promise<void>;
}

/**
 * nginx with `ops/deploy/nginx.conf`'s settings for the Platform API (worker_processes auto,
 * passive checks, HTTP/1.1 kept-alive upstream connections, the same retries) in front of `replicas`.
 */
async function startBenchNginx(binary: string, dir: string, name: string, replicas: ApiReplica[], keepalive = KEEPALIVE): Promise<Nginx> {
  const port = await freePort();
  const root = path.join(dir, `nginx-${name}`);
  fs.mkdirSync(root, { recursive: true });
  fs.chmodSync(root, 0o755);
  const temp = (kind: string) => `${kind}_temp_path ${path.join(root, kind)};`;
  const conf = `
pid ${path.join(root, "nginx.pid")};
error_log ${path.join(root, "error.log")} warn;
daemon off;
worker_processes auto;
events { worker_connections 4096; }
http {
  access_log off;
  ${["client_body", "proxy", "fastcgi", "uwsgi", "scgi"].map(temp).join("\n  ")}
  upstream platform { ${replicas.map((r) => `server 127.0.0.1:${r.platform} max_fails=1 fail_timeout=10s;`).join(" ")} keepalive ${keepalive}; keepalive_timeout 4s; }
  proxy_http_version 1.1;
  proxy_set_header Connection "";
  proxy_set_header Host $http_host;
  proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
  proxy_set_header X-Forwarded-Proto $scheme;
  proxy_next_upstream error timeout http_502 http_503;
  proxy_connect_timeout 2s;
  server { listen 127.0.0.1:${port}; location / { proxy_pass http://platform; } }
}
`;
  const file = path.join(root, "nginx.conf");
  fs.writeFileSync(file, conf);
  execFileSync(binary, ["-t", "-q", "-p", root, "-c", file], { stdio: "pipe" });
  const child = spawn(binary, ["-p", root, "-c", file], { stdio: ["ignore", "ignore", "pipe"] });
  const until = Date.now() + 10_000;
  while (!(await fetch(`http://127.0.0.1:${port}/health`).then((r) => r.ok, () => false))) {
    if (Date.now() > until) throw new Error(`nginx ${name} did not answer: ${fs.readFileSync(path.join(root, "error.log"), "utf8")}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { port, process: child, workers: childrenOf(child.pid!), stop: () => stopProcess(child, "SIGQUIT") };
}

interface Config {
  name: string;
  url: string;
  replicas: ApiReplica[];
  nginx?: Nginx;
  /** The standby whose database the replicas read, to count what it served, and the primary's URL (its replay lag). */
  standby?: { url: string; primaryUrl: string };
}

interface Slice extends LoadResult {
  apiCpu: number;
  nginxCpu: number;
  machineBusy: number;
  machineTotal: number;
  standbyXacts: number;
  /** The standby's replay lag the primary reports at the end of the slice (pg_stat_replication), ms. */
  lagMs: number;
}

async function standbyTransactions(url: string | undefined): Promise<number> {
  if (!url) return 0;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: string }>("SELECT xact_commit + xact_rollback AS n FROM pg_stat_database WHERE datname = current_database()");
    return Number(rows[0]?.n ?? 0);
  } finally {
    await client.end();
  }
}

async function replayLagMs(primaryUrl: string | undefined): Promise<number> {
  if (!primaryUrl) return NaN;
  const client = new pg.Client({ connectionString: primaryUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ ms: number | null }>(
      "SELECT max(extract(epoch FROM coalesce(replay_lag, interval '0')) * 1000)::float8 AS ms FROM pg_stat_replication",
    );
    return rows[0]?.ms ?? NaN;
  } finally {
    await client.end();
  }
}

async function measure(config: Config, paths: string[], seconds: number): Promise<Slice> {
  const pids = config.replicas.map((r) => r.process.pid!);
  const workers = config.nginx?.workers ?? [];
  const sum = (list: number[]) => list.reduce((a, pid) => a + cpuSeconds(pid), 0);
  const [api0, nginx0, machine0, standby0] = [sum(pids), sum(workers), machineCpu(), await standbyTransactions(config.standby?.url)];
  const result = await runWrk({ baseUrl: config.url, paths, connections: CONNECTIONS, seconds, threads: 2 });
  const [api1, nginx1, machine1, standby1] = [sum(pids), sum(workers), machineCpu(), await standbyTransactions(config.standby?.url)];
  return {
    ...result,
    apiCpu: api1 - api0,
    nginxCpu: nginx1 - nginx0,
    machineBusy: machine1.busy - machine0.busy,
    machineTotal: machine1.total - machine0.total,
    standbyXacts: standby1 - standby0,
    lagMs: await replayLagMs(config.standby?.primaryUrl),
  };
}

function combine(slices: Slice[]) {
  const sum = (f: (s: Slice) => number) => slices.reduce((a, s) => a + f(s), 0);
  const mean = (f: (s: Slice) => number) => sum(f) / slices.length;
  const requests = Math.max(1, sum((s) => s.requests));
  return {
    rps: mean((s) => s.rps),
    p50Ms: mean((s) => s.p50Ms),
    p99Ms: mean((s) => s.p99Ms),
    requests,
    errors: sum((s) => s.errors),
    non2xx: sum((s) => s.non2xx),
    apiUs: (sum((s) => s.apiCpu) * 1e6) / requests,
    nginxUs: (sum((s) => s.nginxCpu) * 1e6) / requests,
    machineUs: (sum((s) => s.machineBusy) * 1e6) / requests,
    busyShare: sum((s) => s.machineBusy) / Math.max(1e-9, sum((s) => s.machineTotal)),
    standbyXacts: sum((s) => s.standbyXacts),
    lagMs: Math.max(...slices.map((s) => s.lagMs)),
    perSlice: slices.map((s) => s.rps),
  };
}

/** wrk sending one GraphQL query by POST (runWrk sends GETs). */
function wrkGraphql(url: string, dir: string, connections: number, seconds: number): Promise<LoadResult> {
  const script = path.join(dir, "graphql.lua");
  fs.writeFileSync(
    script,
    `wrk.method = "POST"\nwrk.body = ${JSON.stringify(JSON.stringify({ query: GRAPHQL_QUERY }))}\nwrk.headers["Content-Type"] = "application/json"\n`,
  );
  const args = ["-t2", `-c${connections}`, `-d${seconds}s`, "--timeout", "10s", "--latency", "-s", script, url];
  return spawnWrk(args);
}

/** CPU seconds of a process and all its descendants (a GraphQL replica runs Ponder as its child). */
function treeCpuSeconds(pid: number): number {
  return cpuSeconds(pid) + childrenOf(pid).reduce((a, child) => a + treeCpuSeconds(child), 0);
}

/** One GraphQL replica on the bench's views: POST /graphql straight, CPU of the replica per query. */
async function measureGraphql(dir: string, chainEnv: Record<string, string>): Promise<void> {
  let replica: GraphqlReplica | undefined;
  try {
    replica = await startGraphqlReplica("bench", dir, chainEnv);
    const url = `http://127.0.0.1:${replica.port}/graphql`;
    const probe = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ query: GRAPHQL_QUERY }) });
    const answer = (await probe.json()) as { data?: { pods?: { totalCount: number } }; errors?: unknown };
    if (!answer.data?.pods) throw new Error(`the GraphQL query failed: ${JSON.stringify(answer).slice(0, 300)}`);
    await wrkGraphql(url, dir, 50, 3); // warm-up
    const pid = replica.process.pid!;
    const slices: { result: LoadResult; cpu: number }[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const before = treeCpuSeconds(pid);
      const result = await wrkGraphql(url, dir, 50, SECONDS);
      slices.push({ result, cpu: treeCpuSeconds(pid) - before });
    }
    const requests = Math.max(1, slices.reduce((a, s) => a + s.result.requests, 0));
    const cpuUs = (slices.reduce((a, s) => a + s.cpu, 0) * 1e6) / requests;
    const mean = (f: (r: LoadResult) => number) => slices.reduce((a, s) => a + f(s.result), 0) / slices.length;
    console.log(
      `\nGraphQL replica (ponder serve, straight), ${GRAPHQL_QUERY} on ${answer.data.pods.totalCount} pods, 50 connections, ${ROUNDS} × ${SECONDS} s: ${fmt(mean((r) => r.rps))} req/s (${slices.map((s) => fmt(s.result.rps)).join(" / ")}), p50 ${fmt(mean((r) => r.p50Ms), 2)} ms, p99 ${fmt(mean((r) => r.p99Ms), 2)} ms, errors ${slices.reduce((a, s) => a + s.result.errors, 0)}, non-2xx ${slices.reduce((a, s) => a + s.result.non2xx, 0)}; replica CPU ${fmt(cpuUs, 1)} µs/query (per core ${fmt(1e6 / cpuUs)} queries/s)`,
    );
  } finally {
    if (replica) await killGraphqlReplica(replica, "SIGTERM");
  }
}

export async function runProxyBench(): Promise<void> {
  assertWrkInstalled();
  const nginxBinary = findNginx();
  if (!nginxBinary) throw new Error("the proxy bench needs nginx (apt-get install nginx): none on PATH or in /usr/sbin");
  const started = Date.now();
  const cpus = os.cpus();
  console.log(
    `proxy bench: nproc ${os.availableParallelism()}, ${cpus.length} × ${cpus[0]?.model ?? "cpu"}, load average ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")} (shared machine: other work competes)`,
  );
  const dir = benchTempDir("bench-proxy-");
  fs.chmodSync(dir, 0o755); // nginx's workers (nobody, when started as root) use its temp folders
  const dbName = `bench_proxy_${Date.now()}`;
  let primary: PrimaryCluster | undefined;
  let standby: PgCluster | undefined;
  let serverUrl: string;
  let stopServer: () => Promise<unknown>;
  if (OWN_STANDBY) {
    primary = await startPrimary();
    serverUrl = primary.url();
    stopServer = () => primary!.stop();
  } else {
    ({ serverUrl, stop: stopServer } = await benchPostgres());
  }
  const running: { stop(): Promise<unknown> }[] = [];
  let anvil: Awaited<ReturnType<typeof startAnvil>> | undefined;
  try {
    await createDatabase(serverUrl, dbName);
    const databaseUrl = urlWithDatabase(serverUrl, dbName);
    // the tables and `chain` views come from the real indexer, started once on a fresh devnet (as run.ts)
    anvil = await startAnvil();
    const deployment = await deployProtocol(anvil.rpcUrl);
    const deploymentsFile = path.join(dir, "deployments.json");
    writeDeployment({ ...deployment, rpcUrl: anvil.rpcUrl }, deploymentsFile);
    const indexer = await startBenchIndexer({ databaseUrl, schema: PONDER_SCHEMA, rpcUrl: anvil.rpcUrl, deploymentsFile, tmp: dir });
    await indexer.waitUntilReady(5 * 60_000);
    await indexer.stop();
    await runMigrations(databaseUrl);
    await disableAutovacuum(databaseUrl, PONDER_SCHEMA);
    const t = Date.now();
    const data: BenchData = await grow(databaseUrl, PONDER_SCHEMA, { pods: 0, votes: 0, datanets: 0, users: 0 }, PODS);
    console.log(
      `data (generated, benchmark database): ${data.pods} public pods, ${data.votes} votes, ${data.datanets} datanets, ${data.users} users (+${((Date.now() - t) / 1000).toFixed(0)} s); schema and data ready after ${((Date.now() - started) / 1000).toFixed(0)} s`,
    );

    let readUrl: string | undefined;
    if (primary) {
      standby = await startStandby(primary);
      await waitForReplay(primary, standby, 120_000);
      readUrl = standby.url(dbName);
    } else if (READ_URL) {
      readUrl = urlWithDatabase(READ_URL, dbName);
    }

    const replicaEnv = (extra: Record<string, string>) => ({
      DATABASE_URL: databaseUrl,
      DEPLOYMENTS_FILE: deploymentsFile,
      PONDER_VIEWS_SCHEMA: "chain",
      PONDER_URL: "http://127.0.0.1:9",
      TRUST_PROXY: "true",
      RATE_LIMIT_POINTS: "1000000000",
      EVAL_WORKER_ENABLED: "false",
      EVAL_STORAGE_DIR: path.join(dir, "attachments"),
      EVAL_URL_SIGNING_SECRET: "bench-proxy-signing-secret-0123456789abcdef",
      IDP_LOCAL_KEY_FILE: path.join(dir, "idp-key.json"),
      STATS_API_KEYS: "bench-stats-key",
      LOG_LEVEL: "silent",
      ...extra,
    });
    const startSet = async (prefix: string, extra: Record<string, string>) => {
      const set: ApiReplica[] = [];
      // one at a time: tsx compiling three at once on two cores is slower than in turn
      for (const name of ["a", "b", "c"]) set.push(await startApiReplica(`${prefix}${name}`, dir, replicaEnv(extra)));
      running.push(...set.map((r) => ({ stop: () => stopProcess(r.process) })));
      const one = await startBenchNginx(nginxBinary, dir, `${prefix}1`, set.slice(0, 1));
      const three = await startBenchNginx(nginxBinary, dir, `${prefix}3`, set);
      running.push(one, three);
      return { set, one, three };
    };

    const primaryOnly = await startSet("p", {});
    const configs: Config[] = [
      { name: "direct, 1 replica (baseline)", url: `http://127.0.0.1:${primaryOnly.set[0]!.platform}`, replicas: primaryOnly.set.slice(0, 1) },
      { name: "nginx, 1 replica", url: `http://127.0.0.1:${primaryOnly.one.port}`, replicas: primaryOnly.set.slice(0, 1), nginx: primaryOnly.one },
      { name: "nginx, 3 replicas", url: `http://127.0.0.1:${primaryOnly.three.port}`, replicas: primaryOnly.set, nginx: primaryOnly.three },
    ];
    if (KEEPALIVE_AB > 0) {
      const one = await startBenchNginx(nginxBinary, dir, "ka1", primaryOnly.set.slice(0, 1), KEEPALIVE_AB);
      const three = await startBenchNginx(nginxBinary, dir, "ka3", primaryOnly.set, KEEPALIVE_AB);
      running.push(one, three);
      configs.push(
        { name: `nginx, 1 replica, keepalive ${KEEPALIVE_AB}`, url: `http://127.0.0.1:${one.port}`, replicas: primaryOnly.set.slice(0, 1), nginx: one },
        { name: `nginx, 3 replicas, keepalive ${KEEPALIVE_AB}`, url: `http://127.0.0.1:${three.port}`, replicas: primaryOnly.set, nginx: three },
      );
    }
    if (readUrl) {
      const withRead = await startSet("r", { DATABASE_READ_URL: readUrl });
      const standbyRef = { url: readUrl, primaryUrl: databaseUrl };
      configs.push(
        { name: "direct, 1 replica, read replica", url: `http://127.0.0.1:${withRead.set[0]!.platform}`, replicas: withRead.set.slice(0, 1), standby: standbyRef },
        { name: "nginx, 1 replica, read replica", url: `http://127.0.0.1:${withRead.one.port}`, replicas: withRead.set.slice(0, 1), nginx: withRead.one, standby: standbyRef },
        { name: "nginx, 3 replicas, read replica", url: `http://127.0.0.1:${withRead.three.port}`, replicas: withRead.set, nginx: withRead.three, standby: standbyRef },
      );
    } else {
      console.log("no read replica (BENCH_PROXY_STANDBY=1 or BENCH_READ_URL): the read-replica configurations are left out");
    }

    const paths = ROUTE_PATHS.filter((r) => !r.cookie && !r.agent && !r.stack).map((r) => r.path(data));
    // like Base: an indexed block every BENCH_READ_BLOCK_MS, on the primary, through the whole run
    const blocks = blockProducer(databaseUrl, `${configs[0]!.url}${ROUTE_PATHS.find((r) => r.name === "page1")!.path(data)}`, BLOCK_MS, 0);
    const slices = new Map<string, Slice[]>(configs.map((c) => [c.name, []]));
    try {
      // warm-up: every replica's caches and JIT, through each configuration
      for (const config of configs) await runWrk({ baseUrl: config.url, paths, connections: 50, seconds: 3, threads: 2 });
      for (let round = 0; round < ROUNDS; round++) {
        // alternate the order between rounds: no configuration always goes first
        const order = round % 2 === 0 ? configs : [...configs].reverse();
        for (const config of order) {
          const slice = await measure(config, paths, SECONDS);
          slices.get(config.name)!.push(slice);
          console.log(
            `  round ${round + 1}, ${config.name}: ${fmt(slice.rps)} req/s, p50 ${fmt(slice.p50Ms, 2)} ms, p99 ${fmt(slice.p99Ms, 2)} ms, errors ${slice.errors}, non-2xx ${slice.non2xx}, load average ${os.loadavg()[0]!.toFixed(2)}`,
          );
        }
      }
    } finally {
      const visible = await blocks.stop();
      if (visible.length > 0) {
        const sorted = [...visible].sort((a, b) => a - b);
        console.log(`indexed vote visible in page 1 (replica a, direct): median ${fmt(sorted[Math.floor(sorted.length / 2)]!, 0)} ms, max ${fmt(sorted.at(-1)!, 0)} ms over ${sorted.length} blocks`);
      }
    }

    const baseline = combine(slices.get(configs[0]!.name)!);
    console.log(
      `\nmix of ${paths.length} public routes (bench/read-path), ${CONNECTIONS} connections, ${ROUNDS} × ${SECONDS} s per configuration (alternating), ${data.pods} pods, an indexed block every ${BLOCK_MS} ms; nginx keepalive ${KEEPALIVE}; ${os.availableParallelism()} × ${cpus[0]?.model ?? "cpu"}, load average now ${os.loadavg().map((l) => l.toFixed(2)).join(" ")}`,
    );
    console.log(
      "| configuration | req/s | ÷ baseline | p50 ms | p99 ms | errors | non-2xx | API CPU µs/req | nginx CPU µs/req | machine CPU µs/req | machine busy | standby transactions | replay lag ms |",
    );
    console.log("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for (const config of configs) {
      const c = combine(slices.get(config.name)!);
      console.log(
        `| ${config.name} | ${fmt(c.rps)} (${c.perSlice.map((r) => fmt(r)).join(" / ")}) | ${fmt(c.rps / baseline.rps, 2)} | ${fmt(c.p50Ms, 2)} | ${fmt(c.p99Ms, 2)} | ${c.errors} | ${c.non2xx} | ${fmt(c.apiUs, 1)} | ${config.nginx ? fmt(c.nginxUs, 1) : "-"} | ${fmt(c.machineUs, 1)} | ${fmt(c.busyShare * 100, 0)}% | ${config.standby ? c.standbyXacts : "-"} | ${config.standby ? fmt(c.lagMs, 1) : "-"} |`,
      );
    }
    for (const config of configs) {
      // each count is read on the standby, so a slice adds one transaction of the bench's own
      if (config.standby && combine(slices.get(config.name)!).standbyXacts <= 2 * ROUNDS) {
        console.log(`${config.name}: the standby served nothing: does this API read DATABASE_READ_URL?`);
      }
    }
    console.log(
      `per core (1e6 ÷ CPU µs/req): an API replica ${fmt(1e6 / baseline.apiUs)} req/s of this mix; nginx ${fmt(1e6 / combine(slices.get(configs[1]!.name)!).nginxUs)} req/s (1 replica behind it)`,
    );
    // after the mix, with the API replicas idle: Ponder's GraphQL reads the same views
    if (GRAPHQL) {
      await measureGraphql(dir, { DATABASE_URL: databaseUrl, DEPLOYMENTS_FILE: deploymentsFile, PONDER_VIEWS_SCHEMA: "chain", LOG_LEVEL: "warn" });
    }
    console.log(`\ntotal ${((Date.now() - started) / 1000).toFixed(0)} s`);
  } finally {
    for (const item of running.reverse()) await item.stop().catch(() => undefined);
    await anvil?.stop();
    await standby?.stop();
    if (!primary) await dropDatabase(serverUrl, dbName).catch(() => undefined);
    await stopServer();
  }
}
