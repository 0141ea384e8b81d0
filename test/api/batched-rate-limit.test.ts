/**
 * Batched rate limiter (api/http/batched-rate-limiter.ts): two limiter instances on two pools
 * stand for two replicas sharing one database. Syncs are triggered by hand (no timing).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb, type Database } from "../../api/db/client";
import { runMigrations } from "../../api/db/migrate";
import { BatchedRateLimiter } from "../../api/http/batched-rate-limiter";
import { createRouter, createTestApp } from "../../api/http/create-app";
import { rateLimit } from "../../api/http/rate-limit";
import type { RateLimiterAbstract } from "rate-limiter-flexible";
import { useFreshDatabase, type FreshDatabase } from "../support/database";

const POINTS = 10;
const WINDOW_SECONDS = 60;
// a fixed clock in the middle of a window, so no test crosses a window boundary
const NOW = Math.floor(Date.now() / (WINDOW_SECONDS * 1000)) * WINDOW_SECONDS * 1000 + 30_000;

let database: FreshDatabase;
const replicas: Database[] = [];

beforeAll(async () => {
  database = await useFreshDatabase();
  await runMigrations(database.url);
});

afterAll(async () => {
  await Promise.all(replicas.map((replica) => replica.pool.end()));
  await database?.drop();
});

function replica(keyPrefix: string): BatchedRateLimiter {
  const store = createDb(database.url);
  replicas.push(store);
  // a sync interval far longer than any test: only explicit flush() calls sync
  return new BatchedRateLimiter({
    pool: store.pool,
    points: POINTS,
    windowSeconds: WINDOW_SECONDS,
    keyPrefix,
    syncIntervalMs: 3_600_000,
    now: () => NOW,
  });
}

/** How many of `n` consumes of `key` are admitted. */
async function admitted(limiter: BatchedRateLimiter, key: string, n: number): Promise<number> {
  let ok = 0;
  for (let i = 0; i < n; i++) {
    await limiter.consume(key).then(
      () => ok++,
      () => undefined,
    );
  }
  return ok;
}

describe("batched rate limiter", () => {
  it("is exact within one replica and writes nothing until it syncs", async () => {
    const a = replica("one");
    expect(await admitted(a, "ip:1", POINTS + 5)).toBe(POINTS);
    const store = replicas.at(-1)!;
    const before = await store.pool.query("SELECT count(*)::int AS n FROM offchain.rate_limits WHERE key LIKE 'one:%'");
    expect(before.rows[0].n).toBe(0);
    await a.flush();
    const after = await store.pool.query("SELECT points FROM offchain.rate_limits WHERE key = 'one:ip:1'");
    expect(after.rows[0].points).toBe(POINTS + 5);
  });

  it("shares the budget between replicas once they have synced", async () => {
    const a = replica("shared");
    const b = replica("shared");
    expect(await admitted(a, "ip:2", 6)).toBe(6);
    await a.flush();
    // b learns a's 6 on its first sync of the key
    expect(await admitted(b, "ip:2", 1)).toBe(1);
    await b.flush();
    expect(await admitted(b, "ip:2", 10)).toBe(POINTS - 7);
    await b.flush();
    await a.flush(); // a has nothing new to send; it learns b's counts on its next sync
    expect(await admitted(a, "ip:2", 1)).toBe(0);
  });

  it("over-admits at most what the other replica admitted within one sync interval", async () => {
    const a = replica("bound");
    const b = replica("bound");
    // both replicas see the key for the first time within one interval: each admits its own budget
    const inInterval = (await admitted(a, "ip:3", POINTS)) + (await admitted(b, "ip:3", POINTS));
    expect(inInterval).toBeLessThanOrEqual(POINTS + POINTS); // budget + the other replica's admissions
    await Promise.all([a.flush(), b.flush()]);
    // after one sync, both know the shared total: nothing more is admitted in this window
    expect(await admitted(a, "ip:3", 3)).toBe(0);
    expect(await admitted(b, "ip:3", 3)).toBe(0);
  });

  it("keeps the per-IP and per-identity budgets separate", async () => {
    const a = replica("keys");
    expect(await admitted(a, "ip:4", POINTS)).toBe(POINTS);
    expect(await admitted(a, "user:4", POINTS)).toBe(POINTS);
    expect(await admitted(a, "ip:4", 1)).toBe(0);
  });

  it("answers 429 with Retry-After through the rate-limit middleware", async () => {
    const limiter = replica("http");
    const router = createRouter();
    router.use(rateLimit(limiter as unknown as RateLimiterAbstract, { trustProxy: true }));
    router.get("/ping", (c) => c.json({ pong: true }));
    const app = createTestApp(router);
    const from = { headers: { "x-forwarded-for": "198.51.100.7" } };
    for (let i = 0; i < POINTS; i++) expect((await app.request("/ping", from)).status).toBe(200);
    const limited = await app.request("/ping", from);
    expect(limited.status).toBe(429);
    const retryAfter = Number(limited.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(WINDOW_SECONDS);
    expect(await limited.json()).toEqual({ error: "Too many requests" });
  });

  it("keeps counting per process while the database is unreachable", async () => {
    const a = replica("down");
    const store = replicas.at(-1)!;
    await store.pool.end();
    replicas.pop();
    expect(await admitted(a, "ip:5", POINTS)).toBe(POINTS);
    await a.flush(); // fails, counts kept
    expect(await admitted(a, "ip:5", 1)).toBe(0);
  });
});
