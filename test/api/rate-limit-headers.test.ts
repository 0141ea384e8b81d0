/**
 * RateLimit-Limit / RateLimit-Remaining / RateLimit-Reset (draft-ietf-httpapi-ratelimit-headers)
 * on every response of a rate-limited route, for the request's tightest budget, 429 included
 * (with Retry-After): per IP, per identity (set by createAuthMiddleware) or key
 * issuance.
 */
import type { AddressInfo } from "node:net";
import { serve, type ServerType } from "@hono/node-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createChatApp } from "../../api/chat/app";
import { loadConfig } from "../../api/config";
import { createEvalApp } from "../../api/eval/app";
import { createLogger } from "../../api/http/logger";
import { createMemoryRateLimiter } from "../../api/http/rate-limit";
import { createPlatformApp } from "../../api/platform/app";
import { BASE, newKey, startEvalHarness, type EvalHarness } from "../eval/support";

const WINDOW_SECONDS = 60;
const KEY_WINDOW_SECONDS = 3600;

let h: EvalHarness;

beforeAll(async () => {
  h = await startEvalHarness();
});

afterAll(async () => {
  await h?.close();
});

let prefix = 0;
const limiter = (points: number, windowSeconds = WINDOW_SECONDS) =>
  createMemoryRateLimiter({ points, windowSeconds, keyPrefix: `headers-${++prefix}` });

function apiDeps(points: number) {
  return {
    config: loadConfig({ DATABASE_URL: h.database.url, LOG_LEVEL: "silent", TRUST_PROXY: "true", PONDER_URL: "http://127.0.0.1:9" }),
    pool: h.store.pool,
    db: h.store.db,
    logger: createLogger("silent"),
    rateLimiter: limiter(points),
  };
}

function evalApp(points: number, keyIssuancePoints = 1_000) {
  return createEvalApp({
    ...apiDeps(points),
    keyIssuanceLimiter: limiter(keyIssuancePoints, KEY_WINDOW_SECONDS),
    evalConfig: h.evalConfig,
    storage: h.storage,
    now: h.clock.now,
  });
}

const from = (ip: string, headers: Record<string, string> = {}) => ({ headers: { "x-forwarded-for": ip, ...headers } });

function rateLimitOf(response: Response) {
  const read = (name: string) => {
    const value = response.headers.get(name);
    return value === null ? null : Number(value);
  };
  return { limit: read("RateLimit-Limit"), remaining: read("RateLimit-Remaining"), reset: read("RateLimit-Reset") };
}

function expectResetWithin(response: Response, windowSeconds: number) {
  const { reset } = rateLimitOf(response);
  expect(Number.isInteger(reset)).toBe(true);
  expect(reset).toBeGreaterThanOrEqual(0);
  expect(reset).toBeLessThanOrEqual(windowSeconds);
}

describe("RateLimit-* headers", () => {
  it("count down on every answer, and stay on the 429 beside Retry-After", async () => {
    const app = evalApp(6);
    const key = await newKey(h, "headers-countdown");
    const auth = { authorization: `Bearer ${key}` };
    const seen: Array<number | null> = [];
    for (let i = 0; i < 6; i++) {
      const response = await app.request(`${BASE}/agents/eval-requests/pending`, from("198.51.100.10", auth));
      expect(response.status).toBe(200);
      const shown = rateLimitOf(response);
      seen.push(shown.remaining);
      expect(shown.limit).toBe(6);
      expectResetWithin(response, WINDOW_SECONDS);
    }
    expect(seen).toEqual([5, 4, 3, 2, 1, 0]);

    const refused = await app.request(`${BASE}/agents/eval-requests/pending`, from("198.51.100.10", auth));
    expect(refused.status).toBe(429);
    expect(await refused.json()).toEqual({ error: "Too many requests" });
    expect(rateLimitOf(refused)).toMatchObject({ limit: 6, remaining: 0 });
    expectResetWithin(refused, WINDOW_SECONDS);
    const retryAfter = Number(refused.headers.get("Retry-After"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(WINDOW_SECONDS);
  });

  it("show the identity's budget when it is tighter than the IP's", async () => {
    const app = evalApp(3);
    const key = await newKey(h, "headers-identity");
    const auth = { authorization: `Bearer ${key}` };
    await app.request(`${BASE}/agents/eval-requests/pending`, from("198.51.100.20", auth));
    await app.request(`${BASE}/agents/eval-requests/pending`, from("198.51.100.20", auth));
    // a fresh IP (2 left after this request) but the account's last request of the window (0 left)
    const response = await app.request(`${BASE}/agents/eval-requests/pending`, from("198.51.100.21", auth));
    expect(response.status).toBe(200);
    expect(rateLimitOf(response)).toMatchObject({ limit: 3, remaining: 0 });
    const refused = await app.request(`${BASE}/agents/eval-requests/pending`, from("198.51.100.22", auth));
    expect(refused.status).toBe(429);
    expect(rateLimitOf(refused)).toMatchObject({ limit: 3, remaining: 0 });
  });

  it("are on error answers too (401 of a missing key)", async () => {
    const app = evalApp(2);
    const first = await app.request(`${BASE}/agents/eval-requests/pending`, from("198.51.100.30"));
    const second = await app.request(`${BASE}/agents/eval-requests/pending`, from("198.51.100.30"));
    expect([first.status, second.status]).toEqual([401, 401]);
    expect([rateLimitOf(first).remaining, rateLimitOf(second).remaining]).toEqual([1, 0]);
  });

  it("show the key-issuance budget of POST /keys (the tighter one)", async () => {
    const app = evalApp(100, 2);
    const issue = () =>
      app.request(`${BASE}/keys`, {
        method: "POST",
        headers: { "x-forwarded-for": "198.51.100.40", "content-type": "application/json" },
        body: JSON.stringify({ name: `headers-keys-${Math.random()}` }),
      });
    const answers = [await issue(), await issue(), await issue()];
    expect(answers.map((r) => r.status)).toEqual([201, 201, 429]);
    expect(answers.map((r) => rateLimitOf(r).limit)).toEqual([2, 2, 2]);
    expect(answers.map((r) => rateLimitOf(r).remaining)).toEqual([1, 0, 0]);
    for (const answer of answers) expectResetWithin(answer, KEY_WINDOW_SECONDS);
    expect(rateLimitOf(answers[0]!).reset).toBeGreaterThan(WINDOW_SECONDS);
    expect(answers[2]!.headers.get("Retry-After")).not.toBeNull();
  });

  it("are on the Platform API and the chat server's limited routes, and not on their probes", async () => {
    const platform = createPlatformApp(apiDeps(2));
    const chat = createChatApp(apiDeps(2));
    const platformAnswer = await platform.request("/api/v1/me/pods", from("198.51.100.50"));
    expect(platformAnswer.status).toBe(401);
    expect(rateLimitOf(platformAnswer)).toMatchObject({ limit: 2, remaining: 1 });
    const chatAnswer = await chat.request("/auth/nonce", {
      method: "POST",
      headers: { "x-forwarded-for": "198.51.100.51", "content-type": "application/json" },
      body: JSON.stringify({ walletAddress: "0x00000000000000000000000000000000000000aa" }),
    });
    expect(chatAnswer.status).toBe(200);
    expect(rateLimitOf(chatAnswer)).toMatchObject({ limit: 2, remaining: 1 });

    for (const app of [platform, chat, evalApp(2)]) {
      // a limit of 2 shows any charged budget: none shown means none charged
      for (const probe of ["/health", "/ready"]) {
        const response = await app.request(probe, from("198.51.100.52"));
        expect(response.headers.get("RateLimit-Limit"), probe).toBeNull();
      }
    }
  });

  it("are the same when served by Node, where answer headers go straight to its response (a 429 keeps its own)", async () => {
    const server = await new Promise<ServerType>((resolve) => {
      const s = serve({ fetch: createPlatformApp(apiDeps(2)).fetch, port: 0, hostname: "127.0.0.1" }, () => resolve(s));
    });
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1/me/pods`;
      const answers = [];
      for (let i = 0; i < 3; i++) answers.push(await fetch(url, { headers: { "x-forwarded-for": "198.51.100.60", "x-request-id": `req-${i}` } }));
      expect(answers.map((a) => a.status)).toEqual([401, 401, 429]);
      expect(answers.map((a) => rateLimitOf(a).remaining)).toEqual([1, 0, 0]);
      for (const [i, answer] of answers.entries()) {
        expect(rateLimitOf(answer).limit).toBe(2);
        expectResetWithin(answer, WINDOW_SECONDS);
        expect(answer.headers.get("x-request-id")).toBe(`req-${i}`);
        expect(answer.headers.get("access-control-expose-headers")).toContain("RateLimit-Limit");
        // one value each, not the middleware's and the answer's side by side
        expect(answer.headers.get("RateLimit-Limit")).toBe("2");
        await answer.arrayBuffer();
      }
      expect(Number(answers[2]!.headers.get("retry-after"))).toBeGreaterThan(0);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
