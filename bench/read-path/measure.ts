/**
 * Measuring the read routes (run.ts on generated data, honest.ts on indexed data): each route under
 * wrk beside a bare Hono route served by the same process, in turn, and the table of the results.
 */
import type { ServerType } from "@hono/node-server";
import { Hono } from "hono";
import type { Server, ServerResponse } from "node:http";
import { mkdirSync, writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import type { AddressInfo } from "node:net";
import path from "node:path";
import type { ApiConfig } from "../../api/config";
import { createDb } from "../../api/db/client";
import { pino, type Logger } from "pino";
import { createLogger } from "../../api/http/logger";
import { serveApp } from "../../api/http/serve";
import { createPlatformApp } from "../../api/platform/app";
import type { BenchData } from "./data";
import { routeHeaders, type ReferenceApp, type RouteCase } from "./routes";
import { runWrk, type LoadResult } from "./wrk";

export const CONNECTIONS = 50;

export const fmt = (n: number, digits = 0) => (Number.isFinite(n) ? n.toFixed(digits) : "-");

export interface Row {
  scale: number;
  route: string;
  path: string;
  result: LoadResult;
  bare: LoadResult;
}

/** Equal-length runs as one: mean req/s and percentiles, summed counts. */
function combine(runs: LoadResult[]): LoadResult {
  const mean = (f: (r: LoadResult) => number) => runs.reduce((a, r) => a + f(r), 0) / runs.length;
  const sum = (f: (r: LoadResult) => number) => runs.reduce((a, r) => a + f(r), 0);
  return {
    cpuUs:
      sum((r) => (r.cpuUs ?? 0) * r.requests) /
      Math.max(
        1,
        sum((r) => r.requests),
      ),
    userUs:
      sum((r) => (r.userUs ?? 0) * r.requests) /
      Math.max(
        1,
        sum((r) => r.requests),
      ),
    rps: mean((r) => r.rps),
    p50Ms: mean((r) => r.p50Ms),
    p99Ms: mean((r) => r.p99Ms),
    requests: sum((r) => r.requests),
    errors: sum((r) => r.errors),
    non2xx: sum((r) => r.non2xx),
  };
}

/** Serves `fetch` as the API serves its surfaces (serveApp), on a free loopback port. */
const listen = (fetch: (req: Request) => Response | Promise<Response>): Promise<ServerType> =>
  serveApp({ fetch }, "127.0.0.1", 0);

const urlOf = (server: ServerType | Server) => `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

/** What a bare Hono JSON answer carries too. */
const BARE_ANSWER_HEADERS = new Set(["content-type", "content-length", "date", "connection", "keep-alive"]);

/** The API's logger at `level`, its lines written as by default (synchronously) to /dev/null. */
const devNullLogger = (level: "info" | "debug") =>
  createLogger(level, { destination: pino.destination({ dest: "/dev/null", sync: true }) });

/**
 * The references, in this process beside the API: a bare Hono app (GET /json); the Platform app
 * with its whole middleware stack and one trivial route (its cost ÷ bare is the stack's overhead);
 * and a bare route answering with that stack's headers through Hono.
 */
export async function startReferenceServers(config: ApiConfig, databaseUrl: string) {
  const stackStore = createDb(databaseUrl, { chainSchemaName: "chain" });
  const stackServer = async (logger: Logger) => {
    const app = createPlatformApp({ config, pool: stackStore.pool, db: stackStore.db, logger });
    app.get("/api/v1/bench/trivial", (c) => c.json({ hello: "world" }));
    return listen(app.fetch);
  };
  const silentStack = await stackServer(createLogger("silent"));
  // the headers a trivial answer of the stack carries beyond a bare one's, sent by a bare route
  const probe = await fetch(`${urlOf(silentStack)}/api/v1/bench/trivial`);
  const stackHeaders: Record<string, string> = {};
  probe.headers.forEach((value, name) => {
    if (!BARE_ANSWER_HEADERS.has(name)) stackHeaders[name] = value;
  });
  // set on the Node response, as the stack sets them (api/http/answer-headers.ts); passed to
  // c.json instead, they would cost more: Hono puts them in a WHATWG Headers object (answerWithHeaders)
  const headersApp = new Hono<{ Bindings: { outgoing: ServerResponse } }>();
  headersApp.get("/json", (c) => {
    for (const [name, value] of Object.entries(stackHeaders)) c.env.outgoing.setHeader(name, value);
    return c.json({ hello: "world" });
  });
  const headersServer = await listen(headersApp.fetch);
  const loggedStack = await stackServer(devNullLogger("info"));
  const bareApp = new Hono();
  bareApp.get("/json", (c) => c.json({ hello: "world" }));
  const bareServer = await listen(bareApp.fetch);
  const servers = [bareServer, silentStack, loggedStack, headersServer];
  return {
    stackUrls: {
      silent: urlOf(silentStack),
      info: urlOf(loggedStack),
      headers: urlOf(headersServer),
    } as Record<ReferenceApp, string>,
    bareUrl: urlOf(bareServer),
    async close() {
      for (const server of servers) await new Promise((resolve) => server.close(resolve));
      await stackStore.pool.end();
    },
  };
}

/**
 * wrk on `paths`, with this process's CPU time per answered request (the API and the bare app run
 * here, wrk does not): steadier than req/s on a shared machine, where other work takes the cores at random.
 */
export async function load(
  baseUrl: string,
  paths: string[],
  headers: Record<string, string> | undefined,
  connections: number,
  seconds: number,
) {
  const before = process.cpuUsage();
  const result = await runWrk({ baseUrl, paths, connections, seconds, headers });
  const used = process.cpuUsage(before);
  const requests = Math.max(1, result.requests);
  return { ...result, cpuUs: (used.user + used.system) / requests, userUs: used.user / requests };
}

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

export type MeasureOptions = {
  routes: RouteCase[];
  data: BenchData;
  /** The size in the table's first column. */
  scale: number;
  /** Appended to each route's name (e.g. " (analyzed)"). */
  label: string;
  platformUrl: string;
  stackUrls: Record<ReferenceApp, string>;
  bareUrl: string;
  /** The IdP token of the user whose cookie the cookie routes send. */
  cookieToken: string;
  seconds: number;
  rounds: number;
};

/** Each route: one request (a cold miss), a warm-up (caches, JIT), then bare and route in turn `rounds` times. */
export async function measureRoutes(o: MeasureOptions): Promise<Row[]> {
  const rows: Row[] = [];
  for (const route of o.routes) {
    const p = route.path(o.data);
    const headers = routeHeaders(route, o.cookieToken);
    const base = route.stack ? o.stackUrls[route.stack] : o.platformUrl;
    await (await fetch(`${base}${p}`, { headers })).arrayBuffer();
    await load(base, [p], headers, 10, 1);
    // a shared machine's load drifts: bare and route in turn see the same
    const bares: LoadResult[] = [];
    const results: LoadResult[] = [];
    const slice = o.seconds / o.rounds;
    for (let r = 0; r < o.rounds; r++) {
      bares.push(await load(o.bareUrl, ["/json"], undefined, CONNECTIONS, slice));
      results.push(
        await profiled(`${o.scale}-${route.name}${o.label.replace(/\W+/g, "")}-${r}`, () =>
          load(base, [p], headers, route.connections ?? CONNECTIONS, slice),
        ),
      );
    }
    const bare = combine(bares);
    const result = combine(results);
    rows.push({ scale: o.scale, route: `${route.name}${o.label}`, path: p, result, bare });
    console.log(
      `  ${o.scale} ${route.name}${o.label}: ${fmt(result.rps)} req/s, p50 ${fmt(result.p50Ms, 2)} ms, p99 ${fmt(result.p99Ms, 2)} ms, errors ${result.errors}, CPU ${fmt(result.cpuUs ?? NaN, 1)} µs/req (bare ${fmt(bare.rps)} req/s, ${fmt(bare.cpuUs ?? NaN, 1)} µs/req)`,
    );
  }
  return rows;
}

export function printTable(title: string, rows: Row[]) {
  console.log(`\n${title}`);
  console.log(
    "| size | route | req/s | p50 ms | p99 ms | errors | bare req/s | bare p99 | ÷ bare | p99 ÷ bare p99 | CPU µs/req | bare CPU µs/req | CPU ÷ bare | user CPU ÷ bare |",
  );
  console.log("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
  for (const r of rows) {
    console.log(
      `| ${r.scale} | ${r.route} | ${fmt(r.result.rps)} | ${fmt(r.result.p50Ms, 2)} | ${fmt(r.result.p99Ms, 2)} | ${r.result.errors} | ${fmt(r.bare.rps)} | ${fmt(r.bare.p99Ms, 2)} | ${fmt(r.result.rps / r.bare.rps, 3)} | ${fmt(r.result.p99Ms / r.bare.p99Ms, 2)} | ${fmt(r.result.cpuUs ?? NaN, 1)} | ${fmt(r.bare.cpuUs ?? NaN, 1)} | ${fmt((r.result.cpuUs ?? NaN) / (r.bare.cpuUs ?? NaN), 2)} | ${fmt((r.result.userUs ?? NaN) / (r.bare.userUs ?? NaN), 2)} |`,
    );
  }
}
