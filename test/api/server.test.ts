/**
 * The API process as `npm run api` assembles it (api/server.ts), on anvil and a fresh database
 * with a stand-in for the indexer's views (a checkpoint and an empty event log): the process
 * builds one chain client for its surfaces, its indexer-lag probe and its reorg reconciler, and its
 * shutdown closes the Platform API's event feed.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { EventFeed } from "../../api/platform/services/event-feed";
import type { ApiServer } from "../../api/server";
import { createChainClient } from "../../chain/client";
import { writeDeployment } from "../../chain/deployments";
import { startTestApi } from "../support/api-server";
import { startDevnet, type Devnet } from "../support/chain";
import { useFreshDatabase, type FreshDatabase } from "../support/database";
import { checkpointOf } from "../support/ponder-checkpoint";

vi.mock("../../chain/client", async (importOriginal) => {
  const actual = await importOriginal<typeof import("../../chain/client")>();
  return { ...actual, createChainClient: vi.fn(actual.createChainClient) };
});

const ENV = [
  "DEPLOYMENTS_FILE",
  "PONDER_RPC_URL_8453",
  "CORE_TOKEN_ADDRESS",
  "PRIMARY_TOKEN_ADDRESS",
  "VE_CORE_ADDRESS",
  "SUBNET_MANAGER_ADDRESS",
  "POD_MANAGER_ADDRESS",
  "START_BLOCK",
  "EVAL_WORKER_ENABLED",
  "EVAL_STORAGE_DIR",
  "EVENTS_POLL_INTERVAL_MS",
] as const;
const saved = Object.fromEntries(ENV.map((name) => [name, process.env[name]]));

let devnet: Devnet;
let database: FreshDatabase;
let tempDir: string;
let api: ApiServer;
let closed = false;

/** What the API reads of the indexer's views schema `chain`: its checkpoint (at block 1) and the event log. */
async function standInViews(url: string): Promise<void> {
  const indexed = await devnet.protocol.publicClient.getBlock({ blockNumber: 1n });
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`CREATE SCHEMA chain;
      CREATE TABLE chain._ponder_checkpoint (chain_name text PRIMARY KEY, latest_checkpoint varchar(75) NOT NULL);
      CREATE TABLE chain.event_log (id text PRIMARY KEY, block_number numeric(78) NOT NULL, log_index integer NOT NULL,
        block_hash text NOT NULL, tx_hash text NOT NULL, timestamp numeric(78) NOT NULL, kind text NOT NULL, data jsonb NOT NULL);
      CREATE TABLE chain.event_log_topic (id text PRIMARY KEY, event_id text NOT NULL, topic text NOT NULL,
        block_number numeric(78) NOT NULL, log_index integer NOT NULL)`);
    await client.query("INSERT INTO chain._ponder_checkpoint VALUES ('base', $1)", [checkpointOf(indexed.timestamp, 1n)]);
  } finally {
    await client.end();
  }
}

beforeAll(async () => {
  tempDir = fs.mkdtempSync(path.join(os.tmpdir(), "api-server-"));
  [devnet, database] = await Promise.all([startDevnet(), useFreshDatabase()]);
  await standInViews(database.url);
  const deploymentsFile = path.join(tempDir, "deployments.json");
  writeDeployment(devnet.deployment, deploymentsFile);
  for (const name of ENV) delete process.env[name];
  Object.assign(process.env, {
    DEPLOYMENTS_FILE: deploymentsFile,
    EVAL_WORKER_ENABLED: "false",
    EVAL_STORAGE_DIR: path.join(tempDir, "eval"),
    EVENTS_POLL_INTERVAL_MS: "100",
  });
  vi.mocked(createChainClient).mockClear();
  api = await startTestApi(database.url);
}, 240_000);

afterAll(async () => {
  if (!closed) await api?.close();
  for (const name of ENV) {
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
  }
  await database?.drop();
  await devnet?.chain.stop();
  if (tempDir) fs.rmSync(tempDir, { recursive: true, force: true });
});

describe("the API process", () => {
  it("builds one chain client, which the three surfaces' readiness reads the chain head from", async () => {
    const head = await devnet.protocol.publicClient.getBlockNumber({ cacheTime: 0 });
    for (const url of [api.urls.platform, api.urls.chat, api.urls.eval]) {
      const response = await fetch(`${url}/ready`);
      const body = (await response.json()) as { indexer: { lag?: { indexedBlock: number; chainBlock: number | null } } };
      expect(body.indexer.lag, url).toMatchObject({ indexedBlock: 1, chainBlock: Number(head) });
    }
    // the surfaces, the lag probe and the reconciler (started with the chain) share it
    expect(vi.mocked(createChainClient)).toHaveBeenCalledTimes(1);
    expect(vi.mocked(createChainClient).mock.calls[0]![1]).toBeUndefined();
  });

  it("closes the Platform API's event feed on shutdown: an open stream ends at once and no poller is left", async () => {
    const feeds = new Set<EventFeed>();
    const subscribe = EventFeed.prototype.subscribe;
    const spy = vi.spyOn(EventFeed.prototype, "subscribe").mockImplementation(function (this: EventFeed, topics) {
      feeds.add(this);
      return subscribe.call(this, topics);
    });
    try {
      const response = await fetch(`${api.urls.platform}/api/v1/events`);
      expect(response.status).toBe(200);
      const reader = response.body!.getReader();
      await reader.read(); // the stream's opening comment
      expect(feeds.size).toBe(1);
      const [feed] = [...feeds] as [EventFeed];
      await vi.waitFor(() => expect(feed.polls).toBeGreaterThan(1), { timeout: 30_000 });
      expect(feed.running).toBe(true);

      const started = Date.now();
      closed = true;
      await api.close();
      // the servers wait 5 s for connections still open; the stream did not hold its own
      expect(Date.now() - started).toBeLessThan(3_000);
      for (;;) {
        const { done } = await reader.read().catch(() => ({ done: true }));
        if (done) break;
      }
      expect(feed.isClosed).toBe(true);
      expect(feed.running).toBe(false);
      const polls = feed.polls;
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(feed.polls).toBe(polls);
    } finally {
      spy.mockRestore();
    }
  });

  it("SHUTDOWN_DRAIN_MS: a stopping process first serves on, not ready, closing each connection after its answer", async () => {
    const draining = await startTestApi(database.url, { SHUTDOWN_DRAIN_MS: "1500" });
    const closing = draining.close();
    const ready = await fetch(`${draining.urls.platform}/ready`);
    expect(ready.status).toBe(503);
    expect(ready.headers.get("connection")).toBe("close");
    expect(((await ready.json()) as { reason?: string }).reason).toBe("Shutting down");
    const other = await fetch(`${draining.urls.eval}/health`);
    expect(other.status).toBe(200);
    expect(other.headers.get("connection")).toBe("close");
    await closing;
    await expect(fetch(`${draining.urls.platform}/health`)).rejects.toThrow();
  });
});
