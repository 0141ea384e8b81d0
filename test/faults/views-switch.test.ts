/**
 * A new indexing version takes over the stable views schema with no failed request and no step
 * back (issue 35): version 1 serves `chain` (published by Ponder, as `npm start` runs it); pods are
 * minted all along; version 2 backfills into its own schema and staging views, and
 * `publishWhenCaughtUp` (what `npm run indexer` runs) switches `chain` to it once it has reached
 * the head, in one transaction. Meanwhile the Platform API is read without pause: every answer
 * 200, and what `chain` shows never goes back (its checkpoint block and its newest pod only grow;
 * Ponder's own switch, at the end of the new version's backfill, showed the finalized block's state,
 * 30 blocks old on Base). Afterwards both versions hold the same rows.
 */
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compareChecksums, tableChecksums } from "../../bench/checksum";
import { createMemoryRateLimiter } from "../../api/http/rate-limit";
import { roleAccount } from "../../devnet/accounts";
import { startIndexer, type Indexer } from "../../ops/indexer";
import { indexedBlockOf, publishedSchema, publishWhenCaughtUp, stagingViewsSchemaFor, switchViews } from "../../ops/views-publish";
import { startSeededStack, type SeededStack } from "../support/seeded-stack";

let stack: SeededStack;
let v2: Indexer | undefined;
let pool: pg.Pool;

beforeAll(async () => {
  stack = await startSeededStack({
    name: "views-switch",
    rateLimiter: createMemoryRateLimiter({ points: 1_000_000, windowSeconds: 60, keyPrefix: "views-switch" }),
  });
  pool = new pg.Pool({ connectionString: stack.database.url, max: 4 });
}, 180_000);

afterAll(async () => {
  await v2?.stop().catch(() => undefined);
  await pool?.end();
  await stack?.stop();
});

/** What `chain` shows now: its checkpoint block and its newest pod. */
async function shown(): Promise<{ block: number; pod: number }> {
  const client = await pool.connect();
  try {
    const block = (await indexedBlockOf(client, "chain")) ?? -1;
    const { rows } = await client.query<{ max: string | null }>("SELECT max(id)::text AS max FROM chain.pod");
    return { block, pod: Number(rows[0]?.max ?? 0) };
  } finally {
    client.release();
  }
}

describe("switching the views schema to a new indexing version", () => {
  it("serves every request while version 2 takes over, never showing older state, and ends with equal tables", {
    timeout: 300_000,
  }, async () => {
    const { devnet, database, platformUrl } = stack;
    const p = devnet.protocol;
    const v1Schema = stack.indexer.schema;
    const owner = roleAccount("curatorA");
    const subnet = BigInt(devnet.seed!.seeded.subnets[0]!.tokenId);

    let running = true;
    const failures: string[] = [];
    const steps: string[] = [];
    let requests = 0;
    let last = await shown();
    // pods minted all along, a block each: the head moves while version 2 catches up
    const minter = (async () => {
      while (running) {
        await p.write(owner, "PodManager", "mintPodWithCORE", [owner.address, subnet]).catch(() => undefined);
        await new Promise((resolve) => setTimeout(resolve, 150));
      }
    })();
    const reader = (async () => {
      while (running) {
        for (const route of ["/api/v1/public/pods?limit=20", "/api/v1/stats", "/api/v1/public/subnets"]) {
          const response = await fetch(`${platformUrl}${route}`);
          requests++;
          if (response.status !== 200) failures.push(`${route}: ${response.status} ${await response.text()}`);
        }
        const now = await shown();
        if (now.block < last.block || now.pod < last.pod) steps.push(`${JSON.stringify(last)} -> ${JSON.stringify(now)}`);
        last = now;
      }
    })();

    try {
      const v2Schema = "views_switch_v2";
      const stagingViewsSchema = stagingViewsSchemaFor("chain", v2Schema);
      v2 = await startIndexer({
        databaseUrl: database.url,
        schema: v2Schema,
        viewsSchema: stagingViewsSchema,
        rpcUrl: devnet.chain.rpcUrl,
        deploymentsFile: path.join(stack.tempDir, "deployments.json"),
        logLevel: "warn",
        logFile: path.join(stack.tempDir, "indexer-v2.log"),
      });
      const switched = await publishWhenCaughtUp({
        databaseUrl: database.url,
        schema: v2Schema,
        viewsSchema: "chain",
        stagingViewsSchema,
        maxLagBlocks: 0,
        pollMs: 200,
        chainHead: () => p.publicClient.getBlockNumber({ cacheTime: 0 }),
      });
      expect(switched).toMatchObject({ previous: v1Schema });
      const client = await pool.connect();
      try {
        expect(await publishedSchema(client, "chain")).toBe(v2Schema);
      } finally {
        client.release();
      }
      // keep reading through version 2 for a while
      await new Promise((resolve) => setTimeout(resolve, 2_000));
    } finally {
      running = false;
      await Promise.all([minter, reader]);
    }
    expect(failures).toEqual([]);
    expect(steps).toEqual([]);
    expect(requests).toBeGreaterThan(30);

    // both versions at the same head hold the same rows
    const head = await p.publicClient.getBlockNumber({ cacheTime: 0 });
    await Promise.all([stack.indexer.waitForBlock(head, 60_000), v2!.waitForBlock(head, 60_000)]);
    const [one, two] = await Promise.all([tableChecksums(database.url, v1Schema), tableChecksums(database.url, "views_switch_v2")]);
    expect(one.find((t) => t.table === "pod")!.rows).toBeGreaterThan(devnet.seed!.seeded.pods.length);
    expect(compareChecksums(one, two)).toEqual([]);
  });

  it("publishes on a database with no views schema yet (a fresh deployment), live-query notifier included", async () => {
    await pool.query('DROP SCHEMA "chain" CASCADE');
    const switched = await switchViews({
      databaseUrl: stack.database.url,
      schema: "views_switch_v2",
      viewsSchema: "chain",
      stagingViewsSchema: stagingViewsSchemaFor("chain", "views_switch_v2"),
    });
    expect(switched.previous).toBeNull();
    const { rows } = await pool.query<{ fn: string | null; triggers: string }>(
      `SELECT to_regprocedure('"chain".live_query_notify()')::text AS fn,
              (SELECT count(*)::text FROM pg_trigger WHERE tgname = 'chain_live_query_notify'
                  AND tgrelid = to_regclass('"views_switch_v2"."_ponder_checkpoint"')) AS triggers`,
    );
    expect(rows[0]).toEqual({ fn: "chain.live_query_notify()", triggers: "1" });
    expect(await shown()).toMatchObject({ pod: expect.any(Number) });
    const response = await fetch(`${stack.platformUrl}/api/v1/public/pods?limit=5`);
    expect(response.status).toBe(200);
  });
});
