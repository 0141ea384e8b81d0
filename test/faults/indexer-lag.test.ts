import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeDeployment } from "../../chain/deployments";
import { createChatApp } from "../../api/chat/app";
import { loadConfig } from "../../api/config";
import { createDb, type Database } from "../../api/db/client";
import { runMigrations } from "../../api/db/migrate";
import type { ApiDeps } from "../../api/deps";
import { createEvalApp } from "../../api/eval/app";
import { createLogger } from "../../api/http/logger";
import { createMemoryRateLimiter } from "../../api/http/rate-limit";
import { createPlatformApp } from "../../api/platform/app";
import { startIndexer, type Indexer } from "../../ops/indexer";
import { useFreshDatabase, type FreshDatabase } from "../support/database";
import { startDevnet, type Devnet } from "../support/chain";

// The indexer stops (its child is stopped) while the chain moves on: `/ready` turns 503 on every
// surface with the reason, `/health` stays 200 and shows the lag; once a new indexer catches up,
// `/ready` is 200 again. The lag is read from the views schema and the API's own RPC client.

let devnet: Devnet;
let database: FreshDatabase;
let store: Database;
let indexer: Indexer | undefined;
let tempDir: string;
let deploymentsFile: string;
let apps: Array<{ name: string; app: { request: (url: string) => Response | Promise<Response> } }>;
const savedRpc = process.env.PONDER_RPC_URL_8453;

const startOurIndexer = () =>
  startIndexer({
    databaseUrl: database.url,
    schema: "lag_test",
    viewsSchema: "chain",
    rpcUrl: devnet.chain.rpcUrl,
    deploymentsFile,
    logLevel: "warn",
    logFile: path.join(tempDir, "indexer.log"),
  });

beforeAll(async () => {
  tempDir = fs.mkdtempSync(path.join(os.tmpdir(), "faults-lag-"));
  [devnet, database] = await Promise.all([startDevnet(), useFreshDatabase()]);
  await runMigrations(database.url);
  deploymentsFile = path.join(tempDir, "deployments.json");
  writeDeployment(devnet.deployment, deploymentsFile);
  indexer = await startOurIndexer();
  await indexer.waitUntilReady(120_000);
  await indexer.waitForBlock(await devnet.protocol.publicClient.getBlockNumber({ cacheTime: 0 }), 60_000);

  process.env.PONDER_RPC_URL_8453 = devnet.chain.rpcUrl; // the API's chain client
  store = createDb(database.url);
  const config = loadConfig({ DATABASE_URL: database.url, LOG_LEVEL: "silent", PONDER_URL: indexer.url });
  const deps: ApiDeps = {
    config,
    pool: store.pool,
    db: store.db,
    logger: createLogger("silent"),
    rateLimiter: createMemoryRateLimiter({ points: 100_000, windowSeconds: 60, keyPrefix: "lag" }),
  };
  apps = [
    { name: "platform", app: createPlatformApp(deps) },
    { name: "chat", app: createChatApp(deps) },
    { name: "eval", app: createEvalApp({ ...deps, keyIssuanceLimiter: deps.rateLimiter }) },
  ];
}, 240_000);

afterAll(async () => {
  if (savedRpc === undefined) delete process.env.PONDER_RPC_URL_8453;
  else process.env.PONDER_RPC_URL_8453 = savedRpc;
  await indexer?.stop().catch(() => undefined);
  await store?.pool.end();
  await database?.drop();
  await devnet?.chain.stop();
  if (tempDir) fs.rmSync(tempDir, { recursive: true, force: true });
});

interface Lag {
  indexedBlock: number | null;
  chainBlock: number | null;
  blocksBehind: number | null;
  withinBounds: boolean;
}
type ReadyBody = { ready: boolean; reason?: string; database: string; indexer: { ready: boolean; lag?: Lag } };
type HealthBody = { status: string; indexer: { lag: Lag | null } };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function probe(app: { request: (url: string) => Response | Promise<Response> }, route: string) {
  const response = await app.request(route);
  return { status: response.status, body: (await response.json()) as ReadyBody & HealthBody };
}

async function mine(blocks: number): Promise<void> {
  await fetch(devnet.chain.rpcUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "anvil_mine", params: [`0x${blocks.toString(16)}`] }),
  });
}

/** Polls until every surface's `/ready` answers `status` (the lag is cached for a second). */
async function readyEverywhere(status: number, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const results = await Promise.all(apps.map(async ({ name, app }) => ({ name, ...(await probe(app, "/ready")) })));
    if (results.every((r) => r.status === status) || Date.now() > deadline) return results;
    await sleep(200);
  }
}

describe("readiness tells the truth about the indexer", () => {
  it("is 503 with the reason while the indexer lags the chain, and 200 again once it caught up", async () => {
    const caughtUp = await readyEverywhere(200, 60_000);
    for (const result of caughtUp) {
      expect(result.status, `${result.name}: ${JSON.stringify(result.body)}`).toBe(200);
      expect(result.body.indexer.lag?.withinBounds).toBe(true);
      expect(result.body.reason).toBeUndefined();
    }

    // The indexer stops; the chain moves 15 blocks on.
    await indexer!.stop();
    indexer = undefined;
    const stoppedAt = Date.now();
    await mine(15);

    const lagging = await readyEverywhere(503, 60_000);
    const detectedMs = Date.now() - stoppedAt;
    for (const result of lagging) {
      expect(result.status, `${result.name}: ${JSON.stringify(result.body)}`).toBe(503);
      expect(result.body.ready).toBe(false);
      expect(result.body.database).toBe("ok");
      expect(result.body.reason).toMatch(/^Indexer behind the chain head: block \d+ of \d+ \(1[5-9] blocks/);
      expect(result.body.indexer.lag?.blocksBehind).toBeGreaterThanOrEqual(15);
    }
    for (const { name, app } of apps) {
      const health = await probe(app, "/health");
      expect(health.status, name).toBe(200);
      expect(health.body.status).toBe("ok");
      expect(health.body.indexer.lag?.blocksBehind, name).toBeGreaterThanOrEqual(15);
    }

    // A new indexer process resumes from its checkpoint and catches up.
    const restartedAt = Date.now();
    indexer = await startOurIndexer();
    const recovered = await readyEverywhere(200, 90_000);
    const recoveredMs = Date.now() - restartedAt;
    for (const result of recovered) {
      expect(result.status, `${result.name}: ${JSON.stringify(result.body)}`).toBe(200);
      expect(result.body.indexer.lag?.blocksBehind).toBeLessThanOrEqual(10);
    }
    console.info(`indexer lag: 503 ${detectedMs} ms after the stop and 15 mined blocks; 200 ${recoveredMs} ms after the restart`);
  }, 180_000);
});
