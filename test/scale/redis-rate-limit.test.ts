/**
 * Budgets counted in Redis (REDIS_URL): exact across replicas under concurrency, the same
 * RateLimit-* and Retry-After headers as the PostgreSQL store, and both failure modes while Redis
 * is unreachable (fail-open admits, fail-closed answers 503 with Retry-After; never another 5xx).
 */
import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import type { RedisRateLimitConfig } from "../../api/config";
import { createRouter, createTestApp } from "../../api/http/create-app";
import { rateLimit } from "../../api/http/rate-limit";
import { connectRateLimitRedis, createRedisRateLimiter } from "../../api/http/redis-rate-limiter";

const REDIS_URL = "redis://127.0.0.1:6379";
/** Nothing listens on the discard port: a Redis that is down. */
const DEAD_REDIS_URL = "redis://127.0.0.1:9";
const WINDOW_SECONDS = 60;
/** A command slower than the default timeout on a busy machine would count as Redis down (fail-open counts per replica): not what the exactness check is about. */
const SLOW_MACHINE_TIMEOUT_MS = 10_000;

const clients: Redis[] = [];
afterAll(() => {
  for (const client of clients) client.disconnect();
});

/** One API replica: its own Redis connection and limiter, the shared Redis. */
function replica(redis: RedisRateLimitConfig, points: number) {
  const client = connectRateLimitRedis(redis.url, { commandTimeoutMs: redis.commandTimeoutMs });
  clients.push(client);
  const limiter = createRedisRateLimiter(client, redis, { points, windowSeconds: WINDOW_SECONDS, keyPrefix: "platform" });
  const router = createRouter();
  router.use(rateLimit(limiter, { trustProxy: true }));
  router.get("/ping", (c) => c.json({ pong: true }));
  return { app: createTestApp(router), client };
}

const from = (ip: string) => ({ headers: { "x-forwarded-for": ip } });

async function ready(client: Redis) {
  if (client.status !== "ready") await new Promise((resolve) => client.once("ready", resolve));
}

describe("rate limits in Redis", () => {
  it("admits exactly the budget over three replicas and concurrent requests, with the usual headers", async () => {
    const redis: RedisRateLimitConfig = { url: REDIS_URL, keyPrefix: `test-${randomUUID()}`, failure: "open", commandTimeoutMs: SLOW_MACHINE_TIMEOUT_MS };
    const points = 25;
    const replicas = [replica(redis, points), replica(redis, points), replica(redis, points)];
    for (const r of replicas) await ready(r.client);
    const answers = await Promise.all(
      Array.from({ length: 60 }, (_, i) => replicas[i % 3]!.app.request("/ping", from("198.51.100.7"))),
    );
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(points);
    expect(statuses.filter((s) => s === 429)).toHaveLength(60 - points);
    const limited = answers.find((a) => a.status === 429)!;
    expect(await limited.json()).toEqual({ error: "Too many requests" });
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(limited.headers.get("ratelimit-limit")).toBe(String(points));
    expect(limited.headers.get("ratelimit-remaining")).toBe("0");
    const admitted = answers.filter((a) => a.status === 200).map((a) => Number(a.headers.get("ratelimit-remaining")));
    expect(admitted.sort((a, b) => a - b)).toEqual(Array.from({ length: points }, (_, i) => i));
    // another client has its own budget
    expect((await replicas[0]!.app.request("/ping", from("198.51.100.8"))).status).toBe(200);
  });

  it("fail-open: Redis unreachable, requests are admitted and counted per replica", async () => {
    const { app } = replica({ url: DEAD_REDIS_URL, keyPrefix: `test-${randomUUID()}`, failure: "open", commandTimeoutMs: SLOW_MACHINE_TIMEOUT_MS }, 2);
    expect((await app.request("/ping", from("198.51.100.9"))).status).toBe(200);
    expect((await app.request("/ping", from("198.51.100.9"))).status).toBe(200);
    const third = await app.request("/ping", from("198.51.100.9"));
    expect(third.status).toBe(429);
    expect(third.headers.get("ratelimit-limit")).toBe("2");
  });

  it("fail-closed: Redis unreachable, 503 with Retry-After", async () => {
    const { app } = replica({ url: DEAD_REDIS_URL, keyPrefix: `test-${randomUUID()}`, failure: "closed", commandTimeoutMs: SLOW_MACHINE_TIMEOUT_MS }, 2);
    const answer = await app.request("/ping", from("198.51.100.10"));
    expect(answer.status).toBe(503);
    expect(Number(answer.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(await answer.json()).toEqual({ error: "Rate limiting is unavailable; try again shortly" });
  });
});
