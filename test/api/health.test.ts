import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createChatApp } from "../../api/chat/app";
import { loadConfig } from "../../api/config";
import { createDb, type Database } from "../../api/db/client";
import { runMigrations } from "../../api/db/migrate";
import type { ApiDeps } from "../../api/deps";
import { createEvalApp } from "../../api/eval/app";
import { createRouter, createTestApp } from "../../api/http/create-app";
import { createLogger } from "../../api/http/logger";
import { requireChain } from "../../api/http/readiness";
import { createPlatformApp } from "../../api/platform/app";
import { useFreshDatabase, type FreshDatabase } from "../support/database";

let database: FreshDatabase;
let store: Database;
let ponderStub: http.Server;
let ponderStubUrl: string;

const PONDER_STATUS = { base: { id: 8453, block: { number: 123, timestamp: 1_700_000_000 } } };
// Nothing listens on port 9 (discard) here: the status fetch fails fast.
const UNREACHABLE_PONDER = "http://127.0.0.1:9";

beforeAll(async () => {
  database = await useFreshDatabase();
  await runMigrations(database.url);
  store = createDb(database.url);
  ponderStub = http.createServer((_req, res) => {
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(PONDER_STATUS));
  });
  await new Promise<void>((resolve) => ponderStub.listen(0, "127.0.0.1", resolve));
  ponderStubUrl = `http://127.0.0.1:${(ponderStub.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => ponderStub?.close(resolve));
  await store?.pool.end();
  await database?.drop();
});

interface ReadinessBody {
  ready: boolean;
  indexer: { viewsSchema: string; ready: boolean; status?: unknown };
  database: string;
}

const jsonOf = <T>(response: Response) => response.json() as Promise<T>;

function deps(env: Record<string, string> = {}): ApiDeps {
  const config = loadConfig({ DATABASE_URL: database.url, LOG_LEVEL: "silent", PONDER_URL: UNREACHABLE_PONDER, ...env });
  return { config, pool: store.pool, db: store.db, logger: createLogger("silent") };
}

describe("chat server /health", () => {
  it("reports ok, the service name, its start time and uptime in seconds", async () => {
    const startedAt = new Date(Date.now() - 90_000);
    const response = await createChatApp({ ...deps(), startedAt }).request("/health");
    expect(response.status).toBe(200);
    const body = await jsonOf<{ status: string; service: string; started: string; uptime: number }>(response);
    expect(Object.keys(body).sort()).toEqual(["indexer", "service", "started", "status", "uptime"]);
    expect(body).toMatchObject({ status: "ok", service: "chat-server", started: startedAt.toISOString() });
    expect(body.uptime).toBeGreaterThanOrEqual(90);
    expect(body.uptime).toBeLessThan(100);
  });

  it("is never rate limited", async () => {
    const app = createChatApp(deps({ RATE_LIMIT_POINTS: "1" }));
    for (let i = 0; i < 3; i++) expect((await app.request("/health")).status).toBe(200);
  });
});

describe("readiness", () => {
  it("is 503 until the indexer's views schema has tables, then 200", async () => {
    const viewsSchema = "chain";
    const app = createPlatformApp(deps());

    const before = await app.request("/ready");
    expect(before.status).toBe(503);
    expect(await jsonOf<ReadinessBody>(before)).toEqual({
      ready: false,
      indexer: { viewsSchema, ready: false },
      database: "ok",
      reason: "Indexer not ready: its views are not published yet",
    });

    await store.pool.query(`CREATE SCHEMA ${viewsSchema}`);
    const emptySchema = await app.request("/ready");
    expect(emptySchema.status).toBe(503);

    await store.pool.query(`CREATE TABLE ${viewsSchema}.pod (id text PRIMARY KEY)`);
    const after = await app.request("/ready");
    expect(after.status).toBe(200);
    expect(await jsonOf<ReadinessBody>(after)).toEqual({ ready: true, indexer: { viewsSchema, ready: true }, database: "ok" });
  });

  it("includes the indexer's own progress when Ponder answers /status", async () => {
    await store.pool.query("CREATE SCHEMA IF NOT EXISTS chain_status; CREATE VIEW chain_status.pod AS SELECT 1 AS id");
    const app = createEvalApp(deps({ PONDER_VIEWS_SCHEMA: "chain_status", PONDER_URL: ponderStubUrl }));
    const response = await app.request("/ready");
    expect(response.status).toBe(200);
    expect(await jsonOf<ReadinessBody>(response)).toEqual({
      ready: true,
      indexer: { viewsSchema: "chain_status", ready: true, status: PONDER_STATUS },
      database: "ok",
    });
  });

  it("guards chain routes with a flat 503 until the indexer is ready", async () => {
    const viewsSchema = "chain_guard";
    const router = createRouter();
    router.get("/pods", requireChain(store.pool, viewsSchema), (c) => c.json({ pods: [] }));
    const app = createTestApp(router);

    const before = await app.request("/pods");
    expect(before.status).toBe(503);
    expect(before.headers.get("retry-after")).toBe("10");
    expect(await before.json()).toEqual({ error: "Indexer not ready" });

    await store.pool.query(`CREATE SCHEMA ${viewsSchema}; CREATE TABLE ${viewsSchema}.pod (id text)`);
    const after = await app.request("/pods");
    expect(after.status).toBe(200);
  });

  it("is served on all three surfaces and documented in their OpenAPI documents", async () => {
    const apps = { platform: createPlatformApp(deps()), chat: createChatApp(deps()), eval: createEvalApp(deps()) };
    for (const app of Object.values(apps)) {
      expect([200, 503]).toContain((await app.request("/ready")).status);
      const document = await jsonOf<{ openapi: string; paths: object }>(await app.request("/openapi.json"));
      expect(document.openapi).toBe("3.1.0");
      expect(Object.keys(document.paths)).toContain("/ready");
    }
    const chatDocument = await jsonOf<{ paths: object }>(await apps.chat.request("/openapi.json"));
    expect(Object.keys(chatDocument.paths)).toContain("/health");
  });

  it("has /health (liveness, 200 even while not ready) beside /ready on all three surfaces", async () => {
    const apps = { platform: createPlatformApp(deps()), chat: createChatApp(deps()), eval: createEvalApp(deps()) };
    const services = { platform: "platform-api", chat: "chat-server", eval: "eval-api" };
    for (const [name, app] of Object.entries(apps)) {
      const health = await app.request("/health");
      expect(health.status, name).toBe(200);
      expect(await jsonOf<{ status: string; service: string }>(health), name).toMatchObject({
        status: "ok",
        service: services[name as keyof typeof services],
      });
      const document = await jsonOf<{ paths: object }>(await app.request("/openapi.json"));
      expect(Object.keys(document.paths), name).toEqual(expect.arrayContaining(["/health", "/ready"]));
    }
  });
});
