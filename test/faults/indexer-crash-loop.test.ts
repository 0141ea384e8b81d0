/**
 * A crash loop is loud (issue 40). The supervisor runs a real indexer with a heap limit far below
 * what Ponder needs to start (64 MB): V8 aborts it (SIGABRT, "heap out of memory"), it is
 * restarted, aborts again. Each crash is classified from its exit and output and recorded as the
 * launcher records it; the API in the same process answers `/ready` 503 naming the cause and the
 * count, shows it in `/health`, and counts it in `datamarket_indexer_restarts_total{cause}`.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../api/config";
import { createDb, type Database } from "../../api/db/client";
import { runMigrations } from "../../api/db/migrate";
import { CRASH_LOOP_RESTARTS, recordIndexerCrash } from "../../api/http/indexer-restarts";
import { createLogger } from "../../api/http/logger";
import { metricsRegistry } from "../../api/http/metrics";
import { createPlatformApp } from "../../api/platform/app";
import { writeDeployment } from "../../chain/deployments";
import {
  crashCause,
  type SupervisedIndexer,
  type SupervisorEvent,
  superviseIndexer,
} from "../../ops/indexer-supervisor";
import { startDevnet, type Devnet } from "../support/chain";
import { useFreshDatabase, type FreshDatabase } from "../support/database";

let database: FreshDatabase;
let devnet: Devnet;
let store: Database;
let supervised: SupervisedIndexer | undefined;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "crash-loop-test-"));

beforeAll(async () => {
  [database, devnet] = await Promise.all([useFreshDatabase(), startDevnet()]);
  await runMigrations(database.url);
  store = createDb(database.url);
}, 120_000);

afterAll(async () => {
  await supervised?.stop();
  await store?.pool.end();
  await devnet?.chain.stop();
  await database?.drop();
  fs.rmSync(tmp, { recursive: true, force: true });
});

const restartsOf = async (cause: string) => {
  const metric = await metricsRegistry.getSingleMetric("datamarket_indexer_restarts_total")!.get();
  return metric.values.find((v) => v.labels.cause === cause)?.value ?? 0;
};

describe("indexer crash loop", () => {
  it("is reported by /ready (503, cause and count), /health and the restart metric", { timeout: 240_000 }, async () => {
    const deploymentsFile = path.join(tmp, "deployments.json");
    writeDeployment(devnet.deployment, deploymentsFile);
    const crashes: Extract<SupervisorEvent, { kind: "crashed" }>[] = [];
    const before = await restartsOf("out-of-memory");
    supervised = await superviseIndexer({
      databaseUrl: database.url,
      schema: "crash_loop",
      rpcUrl: devnet.chain.rpcUrl,
      deploymentsFile,
      logFile: path.join(tmp, "indexer.log"),
      env: { INDEXER_MAX_OLD_SPACE_MB: "64" },
      reindexOnDeepReorg: false,
      minBackoffMs: 100,
      maxBackoffMs: 500,
      // as scripts/start.ts does: the API in this process learns of each crash
      onEvent: (event) => {
        if (event.kind !== "crashed") return;
        crashes.push(event);
        recordIndexerCrash(event.cause);
      },
    });
    const deadline = Date.now() + 200_000;
    while (crashes.length < CRASH_LOOP_RESTARTS && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    await supervised.stop();
    supervised = undefined;
    expect(crashes.length).toBeGreaterThanOrEqual(CRASH_LOOP_RESTARTS);
    for (const crash of crashes) {
      expect(crash).toMatchObject({ cause: "out-of-memory", signal: "SIGABRT" });
      expect(crash.line).toMatch(/heap out of memory|Reached heap limit/);
    }
    expect(crashes.map((c) => c.restarts)).toEqual(crashes.map((_, i) => i + 1));

    const config = loadConfig({ DATABASE_URL: database.url, LOG_LEVEL: "silent", PONDER_URL: "http://127.0.0.1:9" });
    const app = createPlatformApp({ config, pool: store.pool, db: store.db, logger: createLogger("silent") });
    const ready = await app.request("/ready");
    expect(ready.status).toBe(503);
    const body = (await ready.json()) as {
      ready: boolean;
      reason: string;
      indexer: { restarts: { total: number; crashLoop: boolean; lastCause: string } };
    };
    expect(body.ready).toBe(false);
    expect(body.reason).toMatch(new RegExp(`crash loop: restarted ${crashes.length} times .*out of memory`));
    expect(body.indexer.restarts).toMatchObject({ total: crashes.length, crashLoop: true, lastCause: "out-of-memory" });

    const health = await app.request("/health");
    expect(health.status).toBe(200);
    const healthBody = (await health.json()) as {
      indexer: { restarts: { total: number; recent: number; crashLoop: boolean } };
    };
    expect(healthBody.indexer.restarts).toMatchObject({
      total: crashes.length,
      recent: crashes.length,
      crashLoop: true,
    });

    expect((await restartsOf("out-of-memory")) - before).toBe(crashes.length);
  });
});

describe("crash causes", () => {
  it("names V8's heap abort, the kernel's kill, RPC and database failures from the last lines", () => {
    expect(
      crashCause("SIGABRT", ["FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory"])
        .cause,
    ).toBe("out-of-memory");
    expect(crashCause("SIGKILL", []).cause).toBe("out-of-memory");
    expect(
      crashCause(null, ["12:00:00.000 ERROR Failed to connect to database: connection refused 127.0.0.1:5432"]).cause,
    ).toBe("database");
    expect(crashCause(null, ["12:00:00.000 ERROR RPC request failed: HttpRequestError eth_getLogs"]).cause).toBe("rpc");
    expect(crashCause(null, ["all good"]).cause).toBe("other");
  });
});
