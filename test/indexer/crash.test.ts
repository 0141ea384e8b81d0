/**
 * Crash recovery: SIGKILL the indexer in the middle of its backfill, start it again on the same
 * schema, and check that nothing is lost or indexed twice.
 */
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { roleAccount, type Role } from "../../devnet/accounts";
import type { Protocol } from "../../devnet/protocol";
import { indexerStatus, type Indexer } from "../../ops/indexer";
import { startDevnet, type Devnet } from "../support/chain";
import { useFreshDatabase, type FreshDatabase } from "../support/database";
import { eventCounts, headBlock, removeIndexerTestFiles, startIndexerFor, verifyIndexedState } from "./helpers";

/** Extra events so the backfill takes a few seconds: tiny votes from three voters, boosts. */
const EXTRA_TX_PER_SENDER = 90;

let database: FreshDatabase;
let devnet: Devnet;
let pool: pg.Pool;
const indexers: Indexer[] = [];

async function sendMany(p: Protocol) {
  // epoch 4 of the seed: pods 1 (datasets), 2 (research, voter1's) and 4 (research, voter2's) are valid
  const senders: Array<[Role, bigint]> = [
    ["voter1", 4n],
    ["voter2", 2n],
    ["voter3", 1n],
  ];
  // one transaction at a time: anvil mines each in its own block
  for (let i = 0; i < EXTRA_TX_PER_SENDER; i++) {
    for (const [role, podId] of senders) {
      await p.write(roleAccount(role), "PodManager", "vote", [podId, BigInt(1_000 + i), i % 3 !== 0]);
    }
  }
  for (let i = 0; i < 30; i++) await p.write(roleAccount("buyer"), "SubnetManager", "boost", [1n, BigInt(1 + i)]);
}

beforeAll(async () => {
  [database, devnet] = await Promise.all([useFreshDatabase(), startDevnet({ seed: true })]);
  await sendMany(devnet.protocol);
  pool = new pg.Pool({ connectionString: database.url, max: 2 });
});

afterAll(async () => {
  await Promise.all(indexers.map((indexer) => indexer.kill()));
  await pool?.end();
  await devnet?.chain.stop();
  await database?.drop();
  removeIndexerTestFiles();
});

describe("indexer crash recovery", () => {
  // waits out the killed indexer's schema lock (~25 s) and a second backfill: slow on two loaded cores
  it("restarts after SIGKILL mid-backfill with no lost or duplicated rows", { timeout: 240_000 }, async () => {
    const p = devnet.protocol;
    const head = await headBlock(p);
    const options = {
      databaseUrl: database.url,
      schema: "crash",
      // two RPC lanes: Ponder's per-URL rate limit keeps this backfill several seconds long
      env: { PONDER_RPC_LANES: "2" },
    };
    const { indexer: doomed } = await startIndexerFor(devnet.deployment, { ...options, logName: "crash-1" });
    indexers.push(doomed);

    // wait until the backfill has committed some rows (it commits block range by block range), then crash it
    let committed = 0;
    let readyBeforeKill = false;
    const deadline = Date.now() + 90_000;
    while (Date.now() < deadline) {
      const status = await indexerStatus(doomed.url).catch(() => undefined);
      if (status?.ready) {
        readyBeforeKill = true;
        break;
      }
      const votes = await pool.query<{ n: string }>("SELECT count(*) AS n FROM crash.vote").catch(() => undefined);
      committed = Number(votes?.rows[0]?.n ?? 0);
      if (committed > 0) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await doomed.kill();
    console.info(`killed the indexer with ${committed} votes committed (chain head ${head})`);
    expect(readyBeforeKill).toBe(false);
    expect(committed).toBeGreaterThan(0);

    // same schema and build: Ponder waits for the dead process's lock to expire, then recovers
    const { indexer: revived } = await startIndexerFor(devnet.deployment, { ...options, logName: "crash-2" });
    indexers.push(revived);
    await revived.waitUntilReady(120_000);
    await revived.waitForBlock(await headBlock(p), 60_000);

    const { indexed, chain } = await eventCounts(p, pool, "crash");
    expect(indexed).toEqual(chain);
    expect(chain.vote).toBeGreaterThan(3 * EXTRA_TX_PER_SENDER);
    expect(indexed.vote).toBeGreaterThan(committed);
    const duplicates = await pool.query(
      "SELECT tx_hash, log_index FROM crash.vote GROUP BY tx_hash, log_index HAVING count(*) > 1",
    );
    expect(duplicates.rowCount).toBe(0);
    expect(await verifyIndexedState(p, pool, "crash")).toEqual([]);
    await revived.stop();
  });
});
