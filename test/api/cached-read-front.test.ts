/**
 * The front of cached reads (api/http/cached-read-front.ts): a kept public answer is served from
 * the Node request with what the surface's middleware gives it, and anything else reaches the app.
 * Each case runs one surface with the front and one without (the app alone), through real Node
 * servers, and compares what a client gets.
 */
import type { ServerType } from "@hono/node-server";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { Writable } from "node:stream";
import pg from "pg";
import type { RateLimiterAbstract } from "rate-limiter-flexible";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runMigrations } from "../../api/db/migrate";
import type { CorsOrigins } from "../../api/env";
import { BatchedRateLimiter } from "../../api/http/batched-rate-limiter";
import { cachedReadFront, type NodeListener } from "../../api/http/cached-read-front";
import { createApp } from "../../api/http/create-app";
import { createLogger } from "../../api/http/logger";
import { metricsRegistry } from "../../api/http/metrics";
import { rateLimit } from "../../api/http/rate-limit";
import type { ReadVersion } from "../../api/http/read-version";
import { createResponseCache } from "../../api/http/response-cache";
import { serveApp } from "../../api/http/serve";
import { useFreshDatabase, type FreshDatabase } from "../support/database";

let database: FreshDatabase;
let pool: pg.Pool;
const servers: ServerType[] = [];
let surfaces = 0;

beforeAll(async () => {
  database = await useFreshDatabase();
  await runMigrations(database.url);
  pool = new pg.Pool({ connectionString: database.url });
});

afterAll(async () => {
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  await pool?.end();
  await database?.drop();
});

interface SurfaceOptions {
  front: boolean;
  points?: number;
  corsOrigins?: CorsOrigins;
  /** The read version is known only after a probe (a promise), as with READ_VERSION_MAX_AGE_MS=0. */
  probed?: boolean;
  logLevel?: "info" | "debug";
  /** Budgets by the X-Forwarded-For hop our proxy added, not by the connection's peer. */
  trustProxy?: boolean;
}

/**
 * A Platform-like surface: createApp's middleware, the per-IP budget, the response cache over
 * `/api/v1/public/*` at a read version the test moves, and counters of what reached the app.
 */
async function startSurface({ front, points = 1_000, corsOrigins = "*", probed = false, logLevel = "debug", trustProxy = false }: SurfaceOptions) {
  const lines: Array<Record<string, unknown>> = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(String(chunk)));
      done();
    },
  });
  const logger = createLogger(logLevel, { destination });
  let value: string | undefined = "v1";
  const version: ReadVersion = {
    current: async () => value,
    recent: () => (probed ? new Promise((resolve) => setTimeout(() => resolve(value), 1)) : value),
    invalidate: () => undefined,
  };
  const cache = createResponseCache({ version, cacheable: (path) => path.startsWith("/api/v1/public/") });
  const limiter = new BatchedRateLimiter({ pool, points, windowSeconds: 60, keyPrefix: `front-${surfaces++}` });
  const app = createApp({
    logger,
    surface: { name: "platform", config: { host: "127.0.0.1", corsOrigins, metricsToken: undefined } },
  });
  app.use("/api/v1/*", rateLimit(limiter as unknown as RateLimiterAbstract, { trustProxy }));
  app.use("/api/v1/*", cache.middleware);
  let runs = 0;
  app.get("/api/v1/public/things", (c) => {
    runs++;
    return c.json({ data: { things: ["a", "b"], version: value } });
  });
  // a body that is not ASCII, of `pad` bytes more
  app.get("/api/v1/public/greeting", (c) => c.json({ data: { text: "Grüße ✓ 🙂", pad: "x".repeat(Number(c.req.query("pad") ?? 0)) } }));
  app.get("/api/v1/me/things", (c) => c.json({ data: [] }));
  let reached = 0;
  const counting =
    (next: NodeListener): NodeListener =>
    (incoming, outgoing) => {
      reached++;
      next(incoming, outgoing);
    };
  const frontOf = cachedReadFront({ surface: "platform", cache, limiter, trustProxy, corsOrigins, logger });
  const server = await serveApp(
    { fetch: app.fetch, front: front ? (next) => frontOf(counting(next)) : counting },
    "127.0.0.1",
    0,
  );
  servers.push(server);
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    get: (path: string, init: SendOptions = {}) => send(url, path, init),
    reached: () => reached,
    runs: () => runs,
    moveVersion: (to: string | undefined) => (value = to),
    lines,
  };
}

/**
 * A request sent as it is written: fetch would add `Cache-Control: no-cache` to a conditional
 * request and remove dot segments from the path.
 */
interface SendOptions {
  method?: string;
  headers?: Record<string, string>;
  /** The connections to send on (default: Node's global agent). */
  agent?: http.Agent;
}

function send(url: string, path: string, { method = "GET", headers = {}, agent }: SendOptions): Promise<Response> {
  return new Promise((resolve, reject) => {
    const { hostname, port } = new URL(url);
    const request = http.request({ hostname, port, path, method, headers, agent }, (incoming) => {
      const chunks: Buffer[] = [];
      incoming.on("data", (chunk: Buffer) => chunks.push(chunk));
      incoming.on("end", () => {
        const answerHeaders = new Headers();
        for (let i = 0; i < incoming.rawHeaders.length; i += 2)
          answerHeaders.append(incoming.rawHeaders[i]!, incoming.rawHeaders[i + 1]!);
        const status = incoming.statusCode!;
        resolve(new Response(status === 304 ? null : Buffer.concat(chunks), { status, headers: answerHeaders }));
      });
    });
    request.on("error", reject);
    request.end();
  });
}

/** The headers of an answer, but the date and the values that differ by request. */
function comparable(response: Response): Record<string, string> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    if (name === "date") return;
    // (the seconds to the window's end can tick between two answers; test/api/rate-limit-headers checks the value)
    headers[name] = name === "x-request-id" ? "<id>" : name === "ratelimit-reset" ? "<seconds>" : value;
  });
  return headers;
}

const PATH = "/api/v1/public/things?page=1";

describe("the front of cached reads", () => {
  it("answers a kept read without the app, with the status, headers and body the app gives it", async () => {
    const fronted = await startSurface({ front: true });
    const alone = await startSurface({ front: false });
    for (const surface of [fronted, alone]) expect((await surface.get(PATH)).headers.get("x-cache")).toBe("miss");
    expect(fronted.reached()).toBe(1);

    const byFront = await fronted.get(PATH);
    const byApp = await alone.get(PATH);
    expect(fronted.reached()).toBe(1);
    expect(alone.reached()).toBe(2);
    expect(byFront.status).toBe(200);
    expect(byFront.headers.get("x-cache")).toBe("hit");
    expect(comparable(byFront)).toEqual(comparable(byApp));
    expect(await byFront.text()).toBe(await byApp.text());
    expect(byFront.headers.get("ratelimit-remaining")).toBe("998"); // shown on every answer
    expect(byFront.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    const echoed = await fronted.get(PATH, { headers: { "X-Request-Id": "trace-42" } });
    expect(echoed.headers.get("x-request-id")).toBe("trace-42");
    expect(fronted.runs()).toBe(1);
  });

  it("sends a kept body's bytes as the app does, small (written with the headers) or large, ASCII or not", async () => {
    const fronted = await startSurface({ front: true });
    const alone = await startSurface({ front: false });
    for (const pad of [0, 1_000, 5_000]) {
      const path = `/api/v1/public/greeting?pad=${pad}`;
      expect((await fronted.get(path)).headers.get("x-cache")).toBe("miss");
      const byFront = await fronted.get(path);
      const byApp = await alone.get(path);
      expect(byFront.headers.get("x-cache")).toBe("hit");
      const [frontBytes, appBytes] = [new Uint8Array(await byFront.arrayBuffer()), new Uint8Array(await byApp.arrayBuffer())];
      expect(frontBytes).toEqual(appBytes);
      expect(Number(byFront.headers.get("content-length"))).toBe(appBytes.byteLength);
      expect(JSON.parse(new TextDecoder().decode(frontBytes)).data.text).toBe("Grüße ✓ 🙂");
    }
    expect(fronted.reached()).toBe(3);
  });

  it("answers a matching If-None-Match with the app's 304", async () => {
    const fronted = await startSurface({ front: true });
    const alone = await startSurface({ front: false });
    const etag = (await fronted.get(PATH)).headers.get("etag")!;
    expect((await alone.get(PATH)).headers.get("etag")).toBe(etag);
    const byFront = await fronted.get(PATH, { headers: { "If-None-Match": etag } });
    const byApp = await alone.get(PATH, { headers: { "If-None-Match": etag } });
    expect(fronted.reached()).toBe(1);
    expect(byFront.status).toBe(304);
    expect(byApp.status).toBe(304);
    expect(comparable(byFront)).toEqual(comparable(byApp));
    expect(await byFront.text()).toBe("");
  });

  it("answers a HEAD of a kept read as the app does: its GET's headers, Content-Length too, and no body", async () => {
    const fronted = await startSurface({ front: true });
    const alone = await startSurface({ front: false });
    // a HEAD first: computed once (as its GET), kept, without a body
    const [missByFront, missByApp] = [await fronted.get(PATH, { method: "HEAD" }), await alone.get(PATH, { method: "HEAD" })];
    expect(missByFront.headers.get("x-cache")).toBe("miss");
    expect(comparable(missByFront)).toEqual(comparable(missByApp));
    expect(await missByFront.text()).toBe("");
    const count = async (labels: string) => {
      const line = (await metricsRegistry.metrics()).split("\n").find((l) => l.startsWith(`datamarket_http_requests_total{${labels}}`));
      return Number(line?.split(" ").at(-1) ?? 0);
    };
    const heads = `surface="platform",method="HEAD",route="/api/v1/public/things",status="200"`;
    const headsBefore = await count(heads);

    const byFront = await fronted.get(PATH, { method: "HEAD" });
    const byApp = await alone.get(PATH, { method: "HEAD" });
    expect(fronted.reached()).toBe(1);
    expect(byFront.status).toBe(200);
    expect(byFront.headers.get("x-cache")).toBe("hit");
    expect(comparable(byFront)).toEqual(comparable(byApp));
    expect(await byFront.text()).toBe("");
    expect(await count(heads)).toBe(headsBefore + 2); // the front's and the app's
    // the same headers as the GET, whose body is the kept one
    const get = await fronted.get(PATH);
    // one request later: one point less of the same budget
    const { "ratelimit-remaining": headRemaining, ...headHeaders } = comparable(byFront);
    const { "ratelimit-remaining": getRemaining, ...getHeaders } = comparable(get);
    expect(headHeaders).toEqual(getHeaders);
    expect(Number(getRemaining)).toBe(Number(headRemaining) - 1);
    expect(Number(byFront.headers.get("content-length"))).toBe((await get.arrayBuffer()).byteLength);
    expect([fronted.runs(), fronted.reached()]).toEqual([1, 1]);
  });

  it("leaves to the app every request it could not answer as the app would", async () => {
    const fronted = await startSurface({ front: true });
    await fronted.get(PATH);
    await fronted.get("/api/v1/public/things");
    const cases: Array<[string, { method?: string; headers?: Record<string, string> }]> = [
      [PATH, { headers: { Authorization: "Bearer x" } }],
      [PATH, { headers: { Cookie: "idp-token=x" } }],
      [PATH, { headers: { "Cache-Control": "no-cache" } }],
      ["/api/v1/public/things?page=%31", {}],
      ["/api/v1/public/x/../things?page=1", {}],
      ["/api/v1/me/things", {}], // not a cacheable path
    ];
    const notKeptYet: (typeof cases)[number] = ["/api/v1/public/things?page=2", {}];
    // twice: the app keeps a target Hono does not read as sent, and still answers it itself
    for (const [path, init] of [...cases, notKeptYet, ...cases]) {
      const before = fronted.reached();
      const response = await fronted.get(path, init);
      expect(response.status, `${init.method ?? "GET"} ${path}`).toBeLessThan(500);
      expect(fronted.reached(), `${init.method ?? "GET"} ${path} ${JSON.stringify(init.headers)}`).toBe(before + 1);
    }
    // the kept URLs themselves are still answered by the front
    const before = fronted.reached();
    await fronted.get("/api/v1/public/things");
    expect(fronted.reached()).toBe(before);
  });

  it("charges the IP budget once per request, whoever answers it, and leaves the 429 to the app", async () => {
    const fronted = await startSurface({ front: true, points: 3 });
    const remaining: Array<string | null> = [];
    for (let i = 0; i < 3; i++) remaining.push((await fronted.get(PATH)).headers.get("ratelimit-remaining"));
    expect(remaining).toEqual(["2", "1", "0"]); // shown on every answer
    expect(fronted.reached()).toBe(1); // the miss; it was charged once, by the app
    const refused = await fronted.get(PATH);
    expect(refused.status).toBe(429);
    expect(await refused.json()).toEqual({ error: "Too many requests" });
    expect(refused.headers.get("retry-after")).toMatch(/^\d+$/);
    expect(refused.headers.get("ratelimit-remaining")).toBe("0");
    expect(fronted.reached()).toBe(2);
  });

  it("charges a client one budget over one kept-alive connection and over new ones alike", async () => {
    const fronted = await startSurface({ front: true, points: 5 });
    const oneConnection = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const remaining: Array<string | null> = [];
    try {
      for (let i = 0; i < 3; i++) remaining.push((await fronted.get(PATH, { agent: oneConnection })).headers.get("ratelimit-remaining"));
      for (let i = 0; i < 2; i++) {
        const newConnection = new http.Agent({ keepAlive: false });
        remaining.push((await fronted.get(PATH, { agent: newConnection })).headers.get("ratelimit-remaining"));
        newConnection.destroy();
      }
    } finally {
      oneConnection.destroy();
    }
    expect(remaining).toEqual(["4", "3", "2", "1", "0"]);
    expect((await fronted.get(PATH)).status).toBe(429);
  });

  it("behind a trusted proxy, charges each forwarded client its own budget, though they share the proxy's connection", async () => {
    const fronted = await startSurface({ front: true, points: 2, trustProxy: true });
    const proxy = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const remainingOf = async (client: string) =>
      (await fronted.get(PATH, { agent: proxy, headers: { "x-forwarded-for": client } })).headers.get("ratelimit-remaining");
    try {
      expect([await remainingOf("198.51.100.1"), await remainingOf("198.51.100.1")]).toEqual(["1", "0"]);
      expect([await remainingOf("198.51.100.2"), await remainingOf("198.51.100.2")]).toEqual(["1", "0"]);
      const refused = await fronted.get(PATH, { agent: proxy, headers: { "x-forwarded-for": "198.51.100.1" } });
      expect(refused.status).toBe(429);
    } finally {
      proxy.destroy();
    }
    expect(fronted.reached()).toBe(2); // the first request computed the answer; the 429 is the app's
  });

  it("serves nothing kept at an older read version: the app computes the new answer", async () => {
    const fronted = await startSurface({ front: true });
    await fronted.get(PATH);
    fronted.moveVersion("v2");
    const moved = await fronted.get(PATH);
    expect(fronted.reached()).toBe(2);
    expect(moved.headers.get("x-cache")).toBe("miss");
    expect(await moved.json()).toEqual({ data: { things: ["a", "b"], version: "v2" } });
    await fronted.get(PATH);
    expect(fronted.reached()).toBe(2);
  });

  it("answers once the read version's probe is back, and leaves an unknown version to the app", async () => {
    const fronted = await startSurface({ front: true, probed: true, points: 5 });
    const first = await fronted.get(PATH);
    const hit = await fronted.get(PATH);
    expect(fronted.reached()).toBe(1);
    expect(hit.headers.get("x-cache")).toBe("hit");
    expect(await hit.json()).toEqual(await first.json());
    fronted.moveVersion(undefined); // e.g. the indexer's views are missing: nothing is cached
    const unknown = await fronted.get(PATH);
    expect(fronted.reached()).toBe(2);
    expect(unknown.headers.get("x-cache")).toBeNull();
    // charged once each, whoever answered and after however long a wait
    expect([first, hit, unknown].map((answer) => answer.headers.get("ratelimit-remaining"))).toEqual(["4", "3", "2"]);
  });

  it("counts and logs each answer as the app does", async () => {
    const fronted = await startSurface({ front: true });
    const count = async (name: string, labels: string) => {
      const line = (await metricsRegistry.metrics()).split("\n").find((l) => l.startsWith(`${name}{${labels}}`));
      return Number(line?.split(" ").at(-1) ?? 0);
    };
    const requests = `surface="platform",method="GET",route="/api/v1/public/things",status="200"`;
    const hits = `surface="platform",cache="response",result="hit"`;
    await fronted.get(PATH);
    const [requestsBefore, hitsBefore] = [
      await count("datamarket_http_requests_total", requests),
      await count("datamarket_cache_lookups_total", hits),
    ];
    const answer = await fronted.get(PATH);
    expect(fronted.reached()).toBe(1);
    expect(await count("datamarket_http_requests_total", requests)).toBe(requestsBefore + 1);
    expect(await count("datamarket_cache_lookups_total", hits)).toBe(hitsBefore + 1);
    const alone = await startSurface({ front: false });
    await alone.get(PATH);
    await alone.get(PATH); // a hit the app's cache middleware answers
    const byFront = fronted.lines.filter((line) => line.msg === "request")[1];
    const byApp = alone.lines.filter((line) => line.msg === "request")[1];
    expect(byFront).toMatchObject({
      level: 20, // debug, as the app logs a kept answer
      method: "GET",
      path: "/api/v1/public/things",
      status: 200,
      requestId: answer.headers.get("x-request-id"),
    });
    expect(byApp).toMatchObject({ level: 20, status: 200 });
    // the same line: the same fields in the same order
    expect(Object.keys(byFront!)).toEqual(Object.keys(byApp!));
  });

  it("writes no line for a kept answer at the info level, as the app does, and one for a computed answer", async () => {
    for (const front of [true, false]) {
      const surface = await startSurface({ front, logLevel: "info" });
      await surface.get(PATH);
      await surface.get(PATH);
      await surface.get(PATH, { headers: { "if-none-match": '"anything"' } });
      const lines = surface.lines.filter((line) => line.msg === "request");
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatchObject({ level: 30, status: 200, path: "/api/v1/public/things" });
    }
  });

  it("gives listed origins the app's CORS headers, and others none, in any order of requests", async () => {
    const corsOrigins = ["https://app.example", "https://admin.example"];
    const fronted = await startSurface({ front: true, corsOrigins });
    const alone = await startSurface({ front: false, corsOrigins });
    await fronted.get(PATH);
    await alone.get(PATH);
    // (the front keeps one header list per answer and CORS list: each change of origin replaces it)
    const origins = ["https://app.example", "https://other.example", "https://admin.example", "https://app.example", undefined];
    for (const origin of origins) {
      const headers: Record<string, string> = origin === undefined ? {} : { Origin: origin };
      const byFront = await fronted.get(PATH, { headers });
      const byApp = await alone.get(PATH, { headers });
      expect(comparable(byFront)).toEqual(comparable(byApp));
    }
    expect(fronted.reached()).toBe(1);
    const allowed = await fronted.get(PATH, { headers: { Origin: "https://app.example" } });
    expect(allowed.headers.get("access-control-allow-origin")).toBe("https://app.example");
    expect(allowed.headers.get("access-control-allow-credentials")).toBe("true");
    expect(allowed.headers.get("vary")).toBe("Origin");
  });

  it("shows the IP budget as the app does once at most half of it is left, with any origin's CORS headers", async () => {
    const corsOrigins = ["https://app.example", "https://admin.example"];
    const fronted = await startSurface({ front: true, points: 6, corsOrigins });
    const alone = await startSurface({ front: false, points: 6, corsOrigins });
    await fronted.get(PATH);
    await alone.get(PATH);
    const origins = ["https://app.example", undefined, "https://admin.example", "https://other.example", "https://app.example"];
    const remaining: Array<string | null> = [];
    for (const origin of origins) {
      const headers: Record<string, string> = origin === undefined ? {} : { Origin: origin };
      // both charged alike: the same requests, one budget each
      const byFront = await fronted.get(PATH, { headers });
      const byApp = await alone.get(PATH, { headers });
      expect(byFront.headers.get("x-cache")).toBe("hit");
      expect(comparable(byFront)).toEqual(comparable(byApp));
      remaining.push(byFront.headers.get("ratelimit-remaining"));
      expect(byFront.headers.get("ratelimit-limit")).toBe("6");
    }
    expect(remaining).toEqual(["4", "3", "2", "1", "0"]);
    expect(fronted.reached()).toBe(1);
  });

  it("sends no CORS headers when CORS is off (none), as the app does", async () => {
    const fronted = await startSurface({ front: true, corsOrigins: "none" });
    const alone = await startSurface({ front: false, corsOrigins: "none" });
    await fronted.get(PATH);
    await alone.get(PATH);
    const headers = { Origin: "https://app.example" };
    const [byFront, byApp] = [await fronted.get(PATH, { headers }), await alone.get(PATH, { headers })];
    expect(byFront.headers.get("x-cache")).toBe("hit");
    expect(comparable(byFront)).toEqual(comparable(byApp));
    expect(byFront.headers.get("access-control-allow-origin")).toBeNull();
    expect(fronted.reached()).toBe(1);
  });
});
