import type { MiddlewareHandler } from "hono";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb, type Database } from "../../api/db/client";
import { runMigrations } from "../../api/db/migrate";
import { createRouter, createTestApp } from "../../api/http/create-app";
import {
  createMemoryRateLimiter,
  createPostgresRateLimiter,
  rateLimit,
  type RateLimitSettings,
} from "../../api/http/rate-limit";
import type { AppEnv } from "../../api/http/types";
import { useFreshDatabase, type FreshDatabase } from "../support/database";

const WINDOW_SECONDS = 60;

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

/** Stands in for an auth middleware: the caller's identity comes from a test header. */
const fakeAuth: MiddlewareHandler<AppEnv> = async (c, next) => {
  const agentId = c.req.header("x-test-agent");
  if (agentId) c.set("identity", { kind: "agent", id: agentId });
  await next();
};

/** One API replica: its own pool, its own limiter instance, the shared database. */
function startReplica(settings: RateLimitSettings) {
  const replica = createDb(database.url);
  replicas.push(replica);
  const limiter = createPostgresRateLimiter(replica.pool, settings);
  const limit = rateLimit(limiter, { trustProxy: true });
  const router = createRouter();
  router.use(limit);
  router.get("/ping", (c) => c.json({ pong: true }));
  router.get("/me", fakeAuth, limit, (c) => c.json({ agent: c.var.identity?.id ?? null }));
  return createTestApp(router);
}

const from = (ip: string, headers: Record<string, string> = {}) => ({
  headers: { "x-forwarded-for": `203.0.113.250, ${ip}`, ...headers },
});

async function expectRateLimited(response: Response) {
  expect(response.status).toBe(429);
  const retryAfter = Number(response.headers.get("retry-after"));
  expect(Number.isInteger(retryAfter)).toBe(true);
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(WINDOW_SECONDS);
  expect(await response.json()).toEqual({ error: "Too many requests" });
}

describe("rate limiting", () => {
  it("answers the request after the budget with 429, Retry-After and a flat error", async () => {
    const app = startReplica({ points: 3, windowSeconds: WINDOW_SECONDS, keyPrefix: "budget" });
    for (let i = 0; i < 3; i++) expect((await app.request("/ping", from("198.51.100.1"))).status).toBe(200);
    await expectRateLimited(await app.request("/ping", from("198.51.100.1")));
  });

  it("keeps the count in the database so replicas share it", async () => {
    const settings = { points: 4, windowSeconds: WINDOW_SECONDS, keyPrefix: "replicas" };
    const first = startReplica(settings);
    const second = startReplica(settings);
    const ip = "198.51.100.2";
    expect((await first.request("/ping", from(ip))).status).toBe(200);
    expect((await second.request("/ping", from(ip))).status).toBe(200);
    expect((await first.request("/ping", from(ip))).status).toBe(200);
    expect((await second.request("/ping", from(ip))).status).toBe(200);
    await expectRateLimited(await first.request("/ping", from(ip)));
    await expectRateLimited(await second.request("/ping", from(ip)));

    const [row] = (
      await replicas[0]!.pool.query<{ points: number }>("SELECT points FROM offchain.rate_limits WHERE key = $1", [
        `replicas:ip:${ip}`,
      ])
    ).rows;
    expect(row?.points).toBeGreaterThanOrEqual(5);
  });

  it("gives every client IP its own budget", async () => {
    const app = startReplica({ points: 1, windowSeconds: WINDOW_SECONDS, keyPrefix: "per-ip" });
    expect((await app.request("/ping", from("198.51.100.3"))).status).toBe(200);
    await expectRateLimited(await app.request("/ping", from("198.51.100.3")));
    expect((await app.request("/ping", from("198.51.100.4"))).status).toBe(200);
  });

  it("also limits an authenticated identity across IPs, charging each request's IP once", async () => {
    const app = startReplica({ points: 2, windowSeconds: WINDOW_SECONDS, keyPrefix: "per-identity" });
    const agent = { "x-test-agent": "agent-1" };
    // The middleware runs before and after auth on /me: the IP is charged once per request, not twice.
    expect((await app.request("/me", from("198.51.100.5", agent))).status).toBe(200);
    expect((await app.request("/me", from("198.51.100.5", agent))).status).toBe(200);
    // A third request from a new IP is within that IP's budget but over the agent's.
    await expectRateLimited(await app.request("/me", from("198.51.100.6", agent)));
    expect((await app.request("/me", from("198.51.100.6"))).status).toBe(200);
  });

  it("counts in memory when given the in-memory limiter", async () => {
    const limiter = createMemoryRateLimiter({ points: 1, windowSeconds: WINDOW_SECONDS, keyPrefix: "memory" });
    const router = createRouter();
    router.use(rateLimit(limiter, { trustProxy: false, skip: (c) => c.req.path === "/health" }));
    router.get("/ping", (c) => c.json({ pong: true }));
    router.get("/health", (c) => c.json({ status: "ok" }));
    const app = createTestApp(router);
    expect((await app.request("/ping")).status).toBe(200);
    await expectRateLimited(await app.request("/ping"));
    expect((await app.request("/health")).status).toBe(200);
  });
});
