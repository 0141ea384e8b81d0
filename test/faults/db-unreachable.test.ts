import fs from "node:fs";
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createChatApp } from "../../api/chat/app";
import { loadConfig } from "../../api/config";
import { createDb, type Database } from "../../api/db/client";
import { runMigrations } from "../../api/db/migrate";
import type { ApiDeps } from "../../api/deps";
import { createEvalApp } from "../../api/eval/app";
import { issueKeyForAccountName } from "../../api/eval/repositories/keys";
import { createLogger } from "../../api/http/logger";
import { createMemoryRateLimiter } from "../../api/http/rate-limit";
import { createPlatformApp } from "../../api/platform/app";
import { startThrowawayPostgres, type DatabaseHandle } from "../../ops/postgres";
import { validSubmit } from "../eval/support";

// A database that accepts connections and never answers, and a PostgreSQL server frozen with
// SIGSTOP (a dedicated embedded one, never a shared server): every request that needs it is a
// flat 503 `Database unavailable` within the pool's bounds, never a 500, and after SIGCONT the
// pool serves again by itself.

/** The server and every backend (stopping only the postmaster leaves open connections served). */
function signalServer(pid: number, signal: NodeJS.Signals): void {
  const children = fs.readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").split(/\s+/).filter(Boolean).map(Number);
  for (const target of signal === "SIGSTOP" ? [pid, ...children] : [...children, pid]) {
    try {
      process.kill(target, signal);
    } catch {
      // a backend that just exited
    }
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const silent = createLogger("silent");

function appsOn(store: Database, url: string) {
  const config = loadConfig({ DATABASE_URL: url, LOG_LEVEL: "silent", PONDER_URL: "http://127.0.0.1:9" });
  const deps: ApiDeps = {
    config,
    pool: store.pool,
    db: store.db,
    logger: silent,
    rateLimiter: createMemoryRateLimiter({ points: 100_000, windowSeconds: 60, keyPrefix: "faults" }),
  };
  return {
    platform: createPlatformApp(deps),
    chat: createChatApp(deps),
    eval: createEvalApp({
      ...deps,
      keyIssuanceLimiter: createMemoryRateLimiter({ points: 100_000, windowSeconds: 60, keyPrefix: "faults-keys" }),
    }),
  };
}

async function send(app: { request: (url: string, init?: RequestInit) => Response | Promise<Response> }, method: string, url: string, body?: unknown, headers: Record<string, string> = {}) {
  const response = await app.request(url, {
    method,
    headers: body === undefined ? headers : { "content-type": "application/json", ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, text };
}

describe("a database that accepts connections and never answers", () => {
  let blackhole: net.Server;
  const sockets = new Set<net.Socket>();
  let store: Database;
  let url: string;

  beforeAll(async () => {
    blackhole = net.createServer((socket) => {
      sockets.add(socket);
      socket.on("error", () => undefined);
    });
    await new Promise<void>((resolve) => blackhole.listen(0, "127.0.0.1", resolve));
    url = `postgres://postgres@127.0.0.1:${(blackhole.address() as net.AddressInfo).port}/nowhere`;
    store = createDb(url, { connectionTimeoutMs: 300, queryTimeoutMs: 600 });
  });

  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await store?.pool.end().catch(() => undefined);
    await new Promise((resolve) => blackhole?.close(resolve));
  });

  it("answers 503 Database unavailable on every surface, within the pool's connection timeout", async () => {
    const apps = appsOn(store, url);
    const key = { authorization: "Bearer dm_eval_0123456789abcdef0123456789abcdef" };
    const requests = [
      send(apps.eval, "POST", "/api/v1/agents/eval-requests/submit", validSubmit(), key),
      send(apps.eval, "GET", "/api/v1/agents/eval-requests?limit=5", undefined, key),
      send(apps.platform, "POST", "/api/v1/agents/register", { name: "frozen-agent", description: "x" }),
      send(apps.platform, "GET", "/api/v1/public/pods"),
      send(apps.chat, "POST", "/auth/nonce", { walletAddress: "0x000000000000000000000000000000000000dEaD" }),
    ];
    const started = Date.now();
    const results = await Promise.all(requests);
    const elapsed = Date.now() - started;
    for (const result of results) {
      expect(result.status, result.text).toBe(503);
      expect(JSON.parse(result.text)).toEqual({ error: "Database unavailable" });
    }
    expect(elapsed).toBeLessThan(3_000);
  });
});

describe("PostgreSQL frozen (SIGSTOP) under 24 concurrent clients", () => {
  let server: DatabaseHandle;
  let store: Database;
  let frozen = false;

  beforeAll(async () => {
    server = await startThrowawayPostgres({ database: "freeze", prefix: "datamarket-freeze-pg-" });
    await runMigrations(server.url);
    store = createDb(server.url, { connectionTimeoutMs: 1_000, queryTimeoutMs: 2_000, maxConnections: 8 });
  });

  afterAll(async () => {
    if (frozen && server?.pid) signalServer(server.pid, "SIGCONT");
    await store?.pool.end().catch(() => undefined);
    await server?.stop();
  });

  it("answers 201 or a flat 503 within a bounded time, and 201 again after SIGCONT", async () => {
    const pid = server.pid;
    expect(pid).toBeTypeOf("number");
    const apps = appsOn(store, server.url);
    const key = (await issueKeyForAccountName(store.db, "freeze-submitter")).key;
    const auth = { authorization: `Bearer ${key}` };

    const unexpected: string[] = [];
    const statuses: Record<number, number> = {};
    let slowest = 0;
    let stop = false;
    let frozenAt = 0;
    let thawedAt = 0;
    let first503 = 0;
    let first201AfterThaw = 0;
    const client = async () => {
      while (!stop) {
        const started = Date.now();
        const result = await send(apps.eval, "POST", "/api/v1/agents/eval-requests/submit", validSubmit(), auth);
        const now = Date.now();
        slowest = Math.max(slowest, now - started);
        statuses[result.status] = (statuses[result.status] ?? 0) + 1;
        if (result.status === 503 && result.text === '{"error":"Database unavailable"}') {
          if (frozenAt && !first503) first503 = now;
        } else if (result.status === 201) {
          if (thawedAt && !first201AfterThaw) first201AfterThaw = now;
        } else {
          unexpected.push(`${result.status} ${result.text}`);
        }
        if (result.status !== 201) await sleep(50);
      }
    };
    const load = Array.from({ length: 24 }, client);

    await sleep(500);
    signalServer(pid!, "SIGSTOP");
    frozen = true;
    frozenAt = Date.now();
    await sleep(4_000);
    signalServer(pid!, "SIGCONT");
    frozen = false;
    thawedAt = Date.now();
    const deadline = Date.now() + 15_000;
    while (!first201AfterThaw && Date.now() < deadline) await sleep(100);
    stop = true;
    await Promise.all(load);

    console.info(
      `freeze: statuses ${JSON.stringify(statuses)}; first 503 ${first503 - frozenAt} ms after SIGSTOP; ` +
        `first 201 ${first201AfterThaw - thawedAt} ms after SIGCONT; slowest answer ${slowest} ms`,
    );
    expect(unexpected).toEqual([]);
    expect(first503, "a 503 during the freeze").toBeGreaterThan(0);
    expect(first503 - frozenAt).toBeLessThan(3_000);
    expect(first201AfterThaw, "a 201 after SIGCONT").toBeGreaterThan(0);
    // One query timeout (2 s): the timed-out connection is closed, so its ROLLBACK fails at once.
    expect(slowest).toBeLessThan(4_500);
  });
});
