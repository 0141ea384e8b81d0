/**
 * One seeded devnet and one indexer (schema s1, views in `chain`) for the whole file:
 * backfill vs the contracts' views, live events, the API's read path (drizzle over the views),
 * GraphQL, a reorg, and a reindex into a second schema.
 */
import { createClient, setDatabaseSchema } from "@ponder/client";
import { desc, eq } from "drizzle-orm";
import { drizzle } from "drizzle-orm/node-postgres";
import pg from "pg";
import { parseEther, type Hash } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { roleAccount } from "../../devnet/accounts";
import { deployProtocol } from "../../devnet/deploy";
import { connectProtocol, type Protocol } from "../../devnet/protocol";
import { seedDemo } from "../../devnet/seed";
import type { Indexer } from "../../ops/indexer";
import * as chainSchema from "../../ponder.schema";
import { startDevnet, type Devnet } from "../support/chain";
import { useFreshDatabase, type FreshDatabase } from "../support/database";
import { count, headBlock, removeIndexerTestFiles, rows, startIndexerFor, verifyIndexedState } from "./helpers";

const CORE = (n: number) => parseEther(String(n));
const who = roleAccount;

let database: FreshDatabase;
let devnet: Devnet;
let pool: pg.Pool;
const indexers: Indexer[] = [];
let first: Indexer;
let backfillMs = 0;

async function caughtUp(indexer: Indexer, p: Protocol) {
  await indexer.waitForBlock(await headBlock(p), 60_000);
}

beforeAll(async () => {
  [database, devnet] = await Promise.all([useFreshDatabase(), startDevnet({ seed: true })]);
  pool = new pg.Pool({ connectionString: database.url, max: 4 });
  const started = Date.now();
  const { indexer } = await startIndexerFor(devnet.deployment, { databaseUrl: database.url, schema: "s1" });
  indexers.push(indexer);
  first = indexer;
  await first.waitUntilReady(120_000);
  await caughtUp(first, devnet.protocol);
  backfillMs = Date.now() - started;
  console.info(`indexer s1: ready and at the head ${backfillMs} ms after spawn`);
});

afterAll(async () => {
  await Promise.all(indexers.map((indexer) => indexer.stop()));
  await pool?.end();
  await devnet?.chain.stop();
  await database?.drop();
  removeIndexerTestFiles();
});

describe("indexer on the seeded devnet", () => {
  it("publishes every table in the views schema `chain`", async () => {
    const { rows: views } = await pool.query<{ table_name: string }>(
      "SELECT table_name FROM information_schema.views WHERE table_schema = 'chain' ORDER BY table_name",
    );
    const names = views.map((v) => v.table_name);
    for (const table of [
      "protocol",
      "datanet",
      "datanet_parameter_update",
      "pod",
      "pod_republish",
      "vote",
      "pod_epoch",
      "voter_epoch",
      "voter_pod_epoch",
      "datanet_epoch",
      "lock",
      "governance_account",
      "claim",
      "boost",
      "emission_seed",
      "subnet_access",
      "subnet_access_holder",
      "fee_collection",
      "fee_total",
      "payment_transfer",
      "event_log",
      "event_log_topic",
    ]) {
      expect(names).toContain(table);
    }
    expect(await count(pool, "chain", "vote")).toBe(devnet.seed?.votes);
    expect(await count(pool, "chain", "pod")).toBe(devnet.seed?.pods);
    expect(await count(pool, "chain", "claim")).toBe(devnet.seed?.claims);
    // the event log: one row per streamed event (here: every vote, mint, claim among others)
    const kinds = await pool.query<{ kind: string; n: string }>("SELECT kind, count(*) AS n FROM chain.event_log GROUP BY kind");
    const byKind = Object.fromEntries(kinds.rows.map((row) => [row.kind, Number(row.n)]));
    expect(byKind).toMatchObject({
      vote: devnet.seed?.votes,
      pod_minted: devnet.seed?.pods,
      emissions_claimed: devnet.seed?.claims,
      datanet_published: devnet.seed?.subnets,
    });
  });

  it("agrees with the contracts' views for every indexed table after the backfill", async () => {
    expect(await verifyIndexedState(devnet.protocol, pool, "chain")).toEqual([]);
  });

  it("records the seeded specifics: package payment, invalidation, republish, governance", async () => {
    const p = devnet.protocol;
    const buyer = who("buyer").address.toLowerCase();
    const voter3 = who("voter3").address.toLowerCase();
    const access = await rows(pool, "chain", "subnet_access");
    expect(access.some((r) => r.payer === buyer && r.account === voter3)).toBe(true);
    const payments = await rows(pool, "chain", "payment_transfer");
    expect(payments.some((r) => r.from === buyer && r.to === p.address("SubnetManager").toLowerCase())).toBe(true);

    const [pod3] = (await rows(pool, "chain", "pod")).filter((r) => r.id === "3");
    expect(pod3?.invalid_from_epoch).toBe("3");
    expect(pod3?.invalid_reason).toBe("flagged after a skipped slop check");
    // pod 3 had 30 up-votes in epoch 3 when it was invalidated: they no longer count for datanet 2
    const [datasets3] = (await rows(pool, "chain", "datanet_epoch")).filter((r) => r.subnet_id === "2" && r.epoch === "3");
    expect(BigInt(datasets3?.up_votes as string)).toBe(CORE(30));
    expect(BigInt(datasets3?.positive_net_votes as string)).toBe(0n);

    const [republish] = await rows(pool, "chain", "pod_republish");
    expect(republish).toMatchObject({ pod_id: "1", from_subnet_id: "1", to_subnet_id: "2", epoch: "2" });
    const governance = await rows(pool, "chain", "governance_account");
    expect(governance).toEqual([expect.objectContaining({ address: who("treasury").address.toLowerCase(), is_governance: true })]);
    const [paid] = (await rows(pool, "chain", "pod")).filter((r) => r.id === "4");
    expect(paid?.payer).toBe(who("serverWallet").address.toLowerCase());
    expect(paid?.owner).toBe(who("voter2").address.toLowerCase());
  });

  it("follows live events: votes moved by a republish, an invalidation, NFT transfers", async () => {
    const p = devnet.protocol;
    const research = 1n;
    const datasets = 2n;
    await p.write(who("voter2"), "PodManager", "vote", [2n, CORE(40), true]);
    await p.write(who("voter3"), "PodManager", "vote", [2n, CORE(10), false]);
    // pod 2 (owner voter1) moves into datasets with a net +30 of this epoch
    await p.write(who("voter1"), "PodManager", "republishPod", [2n, datasets]);
    await p.write(who("voter2"), "PodManager", "vote", [2n, CORE(5), true]);
    await p.write(who("voter3"), "PodManager", "vote", [4n, CORE(5), true]);
    await p.write(who("deployer"), "PodManager", "invalidatePod", [4n, "spam"]);
    await p.write(who("voter1"), "PodManager", "transferFrom", [who("voter1").address, who("buyer").address, 2n]);
    await p.write(who("voter3"), "VeCore", "transferFrom", [who("voter3").address, who("buyer").address, 3n]);
    await p.write(who("buyer"), "SubnetManager", "accessSubnetWithPrimaryTokenFee", [research, who("buyer").address]);
    await p.write(who("curatorA"), "SubnetManager", "setAccessFeeCORE", [research, CORE(12)]);
    await caughtUp(first, p);

    expect(await verifyIndexedState(p, pool, "chain")).toEqual([]);
    const epoch = BigInt(await p.currentEpoch());
    const net = await p.read<bigint>("PodManager", "subnetPositiveNetVotes", [datasets, epoch]);
    const [row] = (await rows(pool, "chain", "datanet_epoch")).filter(
      (r) => r.subnet_id === String(datasets) && r.epoch === String(epoch),
    );
    expect(BigInt(row?.positive_net_votes as string)).toBe(net);
    expect(net).toBeGreaterThanOrEqual(CORE(35));
  });

  it("is readable the API's way: drizzle over the `chain` views with setDatabaseSchema", async () => {
    setDatabaseSchema(chainSchema, "chain");
    const db = drizzle(pool, { schema: chainSchema });
    const voter2 = who("voter2").address.toLowerCase() as `0x${string}`;
    const owned = await db.select().from(chainSchema.pod).where(eq(chainSchema.pod.owner, voter2));
    expect(owned.map((p) => p.id)).toEqual([4n]);
    expect(typeof owned[0]?.cumulativeUpVotes).toBe("bigint");

    const withVotes = await db.query.pod.findMany({
      with: { votes: { orderBy: [desc(chainSchema.vote.blockNumber)] }, datanet: true },
      orderBy: [chainSchema.pod.id],
    });
    expect(withVotes).toHaveLength(4);
    const pod1 = withVotes[0];
    expect(pod1?.datanet?.id).toBe(2n);
    expect(pod1?.votes.reduce((sum, v) => sum + (v.upVote ? v.votes : 0n), 0n)).toBe(pod1?.cumulativeUpVotes);

    const [stats] = await db.select().from(chainSchema.protocol);
    expect(stats?.epochLength).toBe(BigInt(devnet.deployment.parameters.epochLengthSeconds));
  });

  it("serves GraphQL at /graphql: pods with their votes", async () => {
    const query = `{
      pods(orderBy: "id", orderDirection: "asc") {
        items { id owner subnetId validityEpoch cumulativeUpVotes votes(orderBy: "blockNumber") { items { voter votes upVote epoch } } }
      }
    }`;
    const response = await fetch(`${first.url}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ query }),
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as {
      errors?: unknown;
      data: { pods: { items: Array<{ id: string; cumulativeUpVotes: string; votes: { items: Array<{ votes: string; upVote: boolean }> } }> } };
    };
    expect(body.errors).toBeUndefined();
    const pods = body.data.pods.items;
    expect(pods.map((p) => p.id)).toEqual(["1", "2", "3", "4"]);
    for (const pod of pods) {
      const up = pod.votes.items.filter((v) => v.upVote).reduce((sum, v) => sum + BigInt(v.votes), 0n);
      expect(up).toBe(BigInt(pod.cumulativeUpVotes));
    }
    expect(pods[0]?.votes.items.length).toBeGreaterThan(0);
  });

  it("serves SQL over HTTP at /sql for @ponder/client", async () => {
    // /sql runs queries in the indexer's own schema and rejects schema-qualified names: the
    // tables must not be bound to a schema (undo the previous test's setDatabaseSchema)
    setDatabaseSchema(chainSchema, undefined as unknown as string);
    try {
      const client = createClient(`${first.url}/sql`, { schema: chainSchema });
      const locks = await client.db.select().from(chainSchema.lock).orderBy(chainSchema.lock.id);
      expect(locks.map((l) => l.id)).toEqual([1n, 2n, 3n, 4n]);
      expect(locks[2]?.owner).toBe(who("buyer").address.toLowerCase());
    } finally {
      setDatabaseSchema(chainSchema, "chain");
    }
  });

  it("recovers from a reorg: reverted events disappear, the new branch is indexed", async () => {
    const p = devnet.protocol;
    const atSnapshot = await headBlock(p);
    const snapshot = await p.testClient.snapshot();
    const reverted = await p.write(who("voter2"), "PodManager", "vote", [1n, CORE(7), true]);
    await p.write(who("buyer"), "SubnetManager", "boost", [2n, CORE(3)]);
    await p.write(who("voter1"), "VeCore", "stake", [CORE(10), BigInt(30 * 86_400)]);
    await caughtUp(first, p);
    const seen = await pool.query("SELECT 1 FROM chain.vote WHERE tx_hash = $1", [reverted.transactionHash]);
    expect(seen.rowCount).toBe(1);
    const headBefore = await headBlock(p);

    await p.testClient.revert({ id: snapshot });
    const kept: Hash[] = [];
    kept.push((await p.write(who("voter1"), "PodManager", "vote", [1n, CORE(9), false])).transactionHash);
    kept.push((await p.write(who("curatorB"), "SubnetManager", "setEmissionsPerEpochCORE", [2n, CORE(700)])).transactionHash);
    // the new branch outgrows the old one
    await p.testClient.mine({ blocks: 3 });
    const headAfter = await headBlock(p);
    console.info(`reorg: snapshot at ${atSnapshot}, head ${headBefore} reverted, new head ${headAfter}`);
    expect(headAfter).toBeGreaterThan(headBefore);
    await caughtUp(first, p);

    const gone = await pool.query("SELECT 1 FROM chain.vote WHERE tx_hash = $1", [reverted.transactionHash]);
    expect(gone.rowCount).toBe(0);
    const goneFromLog = await pool.query("SELECT 1 FROM chain.event_log WHERE tx_hash = $1", [reverted.transactionHash]);
    expect(goneFromLog.rowCount).toBe(0);
    const present = await pool.query("SELECT 1 FROM chain.vote WHERE tx_hash = $1", [kept[0]]);
    expect(present.rowCount).toBe(1);
    expect(await verifyIndexedState(p, pool, "chain")).toEqual([]);
  });

  // a second indexer's start and backfill (~18 s on two loaded cores): the waits inside allow minutes
  it("reindexes a new deployment into a new schema: the views follow, offchain rows stay", { timeout: 240_000 }, async () => {
    // a second protocol deployment on the same chain, seeded
    const rpcUrl = devnet.chain.rpcUrl;
    const deployment2 = await deployProtocol(rpcUrl);
    await seedDemo(rpcUrl, deployment2);
    const p2 = connectProtocol(rpcUrl, deployment2);

    await pool.query("CREATE SCHEMA IF NOT EXISTS offchain");
    await pool.query("CREATE TABLE offchain.indexer_reindex_probe (id integer PRIMARY KEY, note text NOT NULL)");
    await pool.query("INSERT INTO offchain.indexer_reindex_probe VALUES (1, 'kept'), (2, 'also kept')");

    // clearSyncCache: what a restarted local chain needs (exercised here; harmless for a live chain)
    const { indexer: second } = await startIndexerFor(deployment2, {
      databaseUrl: database.url,
      schema: "s2",
      clearSyncCache: true,
    });
    indexers.push(second);
    await second.waitUntilReady(120_000);
    await caughtUp(second, p2);

    const [viewProtocol] = await rows(pool, "chain", "protocol");
    expect(viewProtocol?.ve_core).toBe(deployment2.contracts.VeCore.address.toLowerCase());
    expect(await verifyIndexedState(p2, pool, "chain")).toEqual([]);
    // the first deployment's schema is untouched and still live
    await caughtUp(first, devnet.protocol);
    expect(await verifyIndexedState(devnet.protocol, pool, "s1")).toEqual([]);
    const probe = await pool.query("SELECT id, note FROM offchain.indexer_reindex_probe ORDER BY id");
    expect(probe.rows).toEqual([
      { id: 1, note: "kept" },
      { id: 2, note: "also kept" },
    ]);

    // SIGINT leaves both schemas unlocked
    await second.stop();
    await first.stop();
    const meta = await pool.query<{ locked: number }>(
      "SELECT (value->>'is_locked')::int AS locked FROM s2._ponder_meta WHERE key = 'app' UNION ALL SELECT (value->>'is_locked')::int FROM s1._ponder_meta WHERE key = 'app'",
    );
    expect(meta.rows.map((r) => r.locked)).toEqual([0, 0]);
  });
});
