/**
 * Response cache of public reads (api/http/response-cache.ts + read-version.ts): served from
 * memory until the indexer's checkpoint advances or an off-chain write commits, on any replica.
 * A `chain._ponder_checkpoint` table stands in for the indexer's view.
 */
import type { AddressInfo } from "node:net";
import { serve, type ServerType } from "@hono/node-server";
import type { Context } from "hono";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb, type Database } from "../../api/db/client";
import { runMigrations } from "../../api/db/migrate";
import { createApp, createRouter, createTestApp } from "../../api/http/create-app";
import { createLogger } from "../../api/http/logger";
import { createMemoryRateLimiter, rateLimit } from "../../api/http/rate-limit";
import { serveApp } from "../../api/http/serve";
import { createReadVersion } from "../../api/http/read-version";
import { CACHE_STATUS_HEADER, createResponseCache } from "../../api/http/response-cache";
import { useFreshDatabase, type FreshDatabase } from "../support/database";

let database: FreshDatabase;
let admin: pg.Client;
const replicas: Database[] = [];

beforeAll(async () => {
  database = await useFreshDatabase();
  await runMigrations(database.url);
  admin = new pg.Client({ connectionString: database.url });
  await admin.connect();
  await admin.query(`CREATE SCHEMA chain`);
  await admin.query(
    `CREATE TABLE chain._ponder_checkpoint (chain_name text PRIMARY KEY, latest_checkpoint varchar(75) NOT NULL)`,
  );
  await admin.query(`INSERT INTO chain._ponder_checkpoint VALUES ('base', '1000')`);
});

afterAll(async () => {
  await admin?.end();
  await Promise.all(replicas.map((replica) => replica.pool.end()));
  await database?.drop();
});

/** One API replica: its own pool and cache; its handler counts its runs and reads both stores. */
function startReplica(viewsSchema = "chain", maxStaleMs?: number, maxAgeMs?: number) {
  const store = createDb(database.url);
  replicas.push(store);
  const cache = createResponseCache({
    version: createReadVersion(store.pool, viewsSchema, { maxAgeMs }),
    cacheable: (path) => path.startsWith("/api/v1/public/"),
    maxStaleMs,
  });
  let runs = 0;
  let gate: Promise<void> | undefined;
  const router = createRouter();
  router.use("/api/v1/*", cache.middleware);
  const handler = async (c: Context) => {
    runs++;
    await gate;
    const { rows } = await store.pool.query(
      `SELECT (SELECT count(*)::int FROM offchain.users) AS users,
              (SELECT latest_checkpoint FROM chain._ponder_checkpoint LIMIT 1) AS checkpoint`,
    );
    return c.json({ data: rows[0] }, 200);
  };
  router.get("/api/v1/public/things", handler);
  router.get("/api/v1/me/things", handler);
  router.get("/api/v1/public/missing", (c) => c.json({ error: "Not found" }, 404));
  router.post("/api/v1/me/things", async (c) => {
    await store.pool.query(`INSERT INTO offchain.users (idp_subject) VALUES ('cache-post-' || gen_random_uuid())`);
    return c.json({ data: { ok: true } }, 201);
  });
  const app = createTestApp(router);
  /** Holds the handlers until the returned function is called. */
  const hold = () => {
    let open!: () => void;
    gate = new Promise<void>((resolve) => (open = resolve));
    return () => {
      gate = undefined;
      open();
    };
  };
  return { app, runs: () => runs, cache, hold };
}

const body = async (res: Response) => ((await res.json()) as { data: { users: number; checkpoint: string } }).data;

describe("read cache", () => {
  it("serves a repeated public read from memory, with an ETag and 304", async () => {
    const r = startReplica();
    const first = await r.app.request("/api/v1/public/things?page=1");
    expect(first.status).toBe(200);
    expect(first.headers.get(CACHE_STATUS_HEADER)).toBe("miss");
    const etag = first.headers.get("etag");
    expect(etag).toBeTruthy();
    expect(first.headers.get("cache-control")).toBe("public, max-age=1, stale-while-revalidate=5");
    const firstBody = await body(first);

    const second = await r.app.request("/api/v1/public/things?page=1");
    expect(second.headers.get(CACHE_STATUS_HEADER)).toBe("hit");
    expect(second.headers.get("content-type")).toMatch(/^application\/json/);
    expect(await body(second)).toEqual(firstBody);
    expect(r.runs()).toBe(1);

    const revalidated = await r.app.request("/api/v1/public/things?page=1", { headers: { "if-none-match": etag! } });
    expect(revalidated.status).toBe(304);
    expect(r.runs()).toBe(1);

    // another URL is another entry
    await r.app.request("/api/v1/public/things?page=2");
    expect(r.runs()).toBe(2);
  });

  it("answers a hit and a 304 with every header through the Node server (the record and the middleware's headers)", async () => {
    const r = startReplica();
    const server = await new Promise<ServerType>((resolve) => {
      const s = serve({ fetch: r.app.fetch, port: 0, hostname: "127.0.0.1" }, () => resolve(s));
    });
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1/public/things?page=1`;
      const first = await fetch(url);
      const firstBody = await first.text();
      const hit = await fetch(url, { headers: { "x-request-id": "hit-1" } });
      expect(hit.status).toBe(200);
      expect(await hit.text()).toBe(firstBody);
      expect(hit.headers.get(CACHE_STATUS_HEADER)).toBe("hit");
      expect(hit.headers.get("etag")).toBe(first.headers.get("etag"));
      expect(hit.headers.get("cache-control")).toBe("public, max-age=1, stale-while-revalidate=5");
      expect(hit.headers.get("content-type")).toMatch(/^application\/json/);
      expect(hit.headers.get("content-length")).toBe(String(Buffer.byteLength(firstBody)));
      expect(hit.headers.get("x-request-id")).toBe("hit-1");
      const revalidated = await fetch(url, {
        headers: { "if-none-match": first.headers.get("etag")!, "x-request-id": "r-1" },
      });
      expect(revalidated.status).toBe(304);
      expect(revalidated.headers.get("etag")).toBe(first.headers.get("etag"));
      expect(revalidated.headers.get(CACHE_STATUS_HEADER)).toBe("hit");
      expect(revalidated.headers.get("x-request-id")).toBe("r-1");
      expect(r.runs()).toBe(1);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("answers hits, HEADs and 304s through the whole stack: RateLimit-* counting down once a request, CORS, request id", async () => {
    const store = createDb(database.url);
    replicas.push(store);
    const cache = createResponseCache({ version: createReadVersion(store.pool, "chain"), cacheable: (path) => path.startsWith("/api/v1/public/") });
    const config = { host: "127.0.0.1", corsOrigins: ["https://app.example"], metricsToken: undefined };
    const app = createApp({ logger: createLogger("silent"), surface: { name: "platform", config } });
    const limiter = createMemoryRateLimiter({ keyPrefix: "cached-stack", points: 10, windowSeconds: 60 });
    app.use("/api/v1/*", rateLimit(limiter, { trustProxy: false }));
    app.use("/api/v1/*", cache.middleware);
    let runs = 0;
    app.get("/api/v1/public/stack", (c) => {
      runs++;
      return c.json({ data: { hello: "world" } });
    });
    const server = await serveApp(app, "127.0.0.1", 0);
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1/public/stack`;
      const origin = { origin: "https://app.example" };
      const miss = await fetch(url, { headers: { ...origin, "x-request-id": "s-0" } });
      const missBody = await miss.text();
      const etag = miss.headers.get("etag")!;
      const hit = await fetch(url, { headers: { ...origin, "x-request-id": "s-1" } });
      const head = await fetch(url, { method: "HEAD", headers: { ...origin, "x-request-id": "s-2" } });
      const notModified = await fetch(url, { headers: { ...origin, "if-none-match": etag, "x-request-id": "s-3" } });
      const other = await fetch(url, { headers: { origin: "https://elsewhere.example", "x-request-id": "s-4" } });
      const answers = [miss, hit, head, notModified, other];
      expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 304, 200]);
      expect(answers.map((a) => a.headers.get(CACHE_STATUS_HEADER))).toEqual(["miss", "hit", "hit", "hit", "hit"]);
      expect(answers.map((a) => a.headers.get("RateLimit-Remaining"))).toEqual(["9", "8", "7", "6", "5"]);
      for (const [i, answer] of answers.entries()) {
        expect(answer.headers.get("RateLimit-Limit")).toBe("10");
        expect(answer.headers.get("x-request-id")).toBe(`s-${i}`);
        expect(answer.headers.get("etag")).toBe(etag);
        expect(answer.headers.get("cache-control")).toBe("public, max-age=1, stale-while-revalidate=5");
      }
      for (const answer of [miss, hit, head, notModified]) {
        expect(answer.headers.get("access-control-allow-origin")).toBe("https://app.example");
      }
      expect(other.headers.get("access-control-allow-origin")).toBeNull();
      expect(await hit.text()).toBe(missBody);
      expect(head.headers.get("content-length")).toBe(String(Buffer.byteLength(missBody)));
      expect(await head.text()).toBe("");
      expect(await notModified.text()).toBe("");
      expect(runs).toBe(1);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("is invalidated by an off-chain write: the next request sees it, on every replica", async () => {
    const a = startReplica();
    const b = startReplica();
    const before = await body(await a.app.request("/api/v1/public/things"));
    await body(await b.app.request("/api/v1/public/things"));
    // a write committed by anyone (here neither replica: a script, another service)
    await admin.query(`INSERT INTO offchain.users (idp_subject) VALUES ('cache-test-' || gen_random_uuid())`);
    const afterA = await body(await a.app.request("/api/v1/public/things"));
    const afterB = await body(await b.app.request("/api/v1/public/things"));
    expect(afterA.users).toBe(before.users + 1);
    expect(afterB.users).toBe(before.users + 1);
  });

  it("is invalidated when the indexer's checkpoint advances", async () => {
    const r = startReplica();
    await body(await r.app.request("/api/v1/public/things"));
    await admin.query(`UPDATE chain._ponder_checkpoint SET latest_checkpoint = '2000'`);
    const res = await r.app.request("/api/v1/public/things");
    expect(res.headers.get(CACHE_STATUS_HEADER)).toBe("miss");
    expect((await body(res)).checkpoint).toBe("2000");
  });

  it("sees nothing uncommitted: a write still open leaves the cache valid", async () => {
    const r = startReplica();
    const before = await body(await r.app.request("/api/v1/public/things"));
    const writer = new pg.Client({ connectionString: database.url });
    await writer.connect();
    try {
      await writer.query("BEGIN");
      await writer.query(`INSERT INTO offchain.users (idp_subject) VALUES ('cache-open-' || gen_random_uuid())`);
      expect((await r.app.request("/api/v1/public/things")).headers.get(CACHE_STATUS_HEADER)).toBe("hit");
      await writer.query("COMMIT");
      expect((await body(await r.app.request("/api/v1/public/things"))).users).toBe(before.users + 1);
    } finally {
      await writer.end();
    }
  });

  it("leaves other paths, error answers and authorized requests alone", async () => {
    const r = startReplica();
    await r.app.request("/api/v1/me/things");
    await r.app.request("/api/v1/me/things");
    expect(r.runs()).toBe(2);
    await r.app.request("/api/v1/public/things?auth", { headers: { authorization: "Bearer x" } });
    await r.app.request("/api/v1/public/things?auth", { headers: { authorization: "Bearer x" } });
    expect(r.runs()).toBe(4);
    const missing = await r.app.request("/api/v1/public/missing");
    expect(missing.status).toBe(404);
    expect(missing.headers.get(CACHE_STATUS_HEADER)).toBeNull();
    expect(r.cache.size()).toBe(0);
  });

  it("is bypassed while the indexer's views are missing", async () => {
    const r = startReplica("no_such_views");
    await r.app.request("/api/v1/public/things");
    await r.app.request("/api/v1/public/things");
    expect(r.runs()).toBe(2);
  });

  it("runs the handler once for concurrent misses of one URL", async () => {
    const r = startReplica();
    await admin.query(`UPDATE chain._ponder_checkpoint SET latest_checkpoint = '3000'`);
    const answers = await Promise.all(Array.from({ length: 8 }, () => r.app.request("/api/v1/public/things?burst")));
    expect(answers.every((res) => res.status === 200)).toBe(true);
    expect(r.runs()).toBe(1);
  });

  it("after a checkpoint move, serves the replaced answer while the new one is computed", async () => {
    const r = startReplica("chain", 3_600_000);
    const old = await body(await r.app.request("/api/v1/public/things?swr"));
    await admin.query(`UPDATE chain._ponder_checkpoint SET latest_checkpoint = '4000'`);
    const release = r.hold();
    const leader = r.app.request("/api/v1/public/things?swr");
    while (r.runs() < 2) await new Promise((resolve) => setImmediate(resolve)); // the leader is in the handler
    const meanwhile = await r.app.request("/api/v1/public/things?swr");
    expect(meanwhile.headers.get(CACHE_STATUS_HEADER)).toBe("stale");
    expect(await body(meanwhile)).toEqual(old);
    release();
    const fresh = await leader;
    expect((await body(fresh)).checkpoint).toBe("4000");
    expect((await r.app.request("/api/v1/public/things?swr")).headers.get(CACHE_STATUS_HEADER)).toBe("hit");
  });

  it("never serves an answer older than an off-chain write, even while the new one is computed", async () => {
    const r = startReplica("chain", 3_600_000);
    const old = await body(await r.app.request("/api/v1/public/things?own-write"));
    await admin.query(`INSERT INTO offchain.users (idp_subject) VALUES ('cache-own-' || gen_random_uuid())`);
    const release = r.hold();
    const leader = r.app.request("/api/v1/public/things?own-write");
    while (r.runs() < 2) await new Promise((resolve) => setImmediate(resolve));
    const follower = r.app.request("/api/v1/public/things?own-write");
    release();
    const [a, b] = await Promise.all([leader, follower]);
    expect((await body(a)).users).toBe(old.users + 1);
    expect((await body(b)).users).toBe(old.users + 1);
  });
});

describe("read cache with a read version up to maxAgeMs old (READ_VERSION_MAX_AGE_MS)", () => {
  const MAX_AGE_MS = 100;
  const withCookie = { headers: { cookie: "idp-token=x" } };
  const pastMaxAge = () => new Promise((resolve) => setTimeout(resolve, MAX_AGE_MS + 20));

  it("shows a write committed elsewhere at once with a cookie or no-cache, and within maxAgeMs to anyone, on every replica", async () => {
    const a = startReplica("chain", undefined, MAX_AGE_MS);
    const b = startReplica("chain", undefined, MAX_AGE_MS);
    const before = await body(await a.app.request("/api/v1/public/things?aged"));
    await body(await b.app.request("/api/v1/public/things?aged"));
    await admin.query(`INSERT INTO offchain.users (idp_subject) VALUES ('cache-aged-' || gen_random_uuid())`);
    expect((await body(await a.app.request("/api/v1/public/things?aged", withCookie))).users).toBe(before.users + 1);
    const noCache = { headers: { "cache-control": "no-cache" } };
    expect((await body(await b.app.request("/api/v1/public/things?aged", noCache))).users).toBe(before.users + 1);
    await pastMaxAge();
    expect((await body(await a.app.request("/api/v1/public/things?aged"))).users).toBe(before.users + 1);
    expect((await body(await b.app.request("/api/v1/public/things?aged"))).users).toBe(before.users + 1);
  });

  it("answers without a probe while the version is recent, and a write through the replica shows on its next read", async () => {
    const r = startReplica("chain", undefined, 60_000);
    const before = await body(await r.app.request("/api/v1/public/things?own-aged"));
    // a change committed elsewhere is not seen while the version is recent (here: a minute)
    await admin.query(`UPDATE chain._ponder_checkpoint SET latest_checkpoint = '5000'`);
    const cached = await r.app.request("/api/v1/public/things?own-aged");
    expect(cached.headers.get(CACHE_STATUS_HEADER)).toBe("hit");
    // a write answered by this replica: its next read waits for a fresh version
    expect((await r.app.request("/api/v1/me/things", { method: "POST" })).status).toBe(201);
    const after = await body(await r.app.request("/api/v1/public/things?own-aged"));
    expect(after.users).toBe(before.users + 1);
    expect(after.checkpoint).toBe("5000");
  });
});
