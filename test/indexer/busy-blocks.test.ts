/**
 * Busy blocks (issue 40): blocks of 2,000 protocol transactions mined before the indexer starts,
 * some final (backfill) and some among the last 30 blocks (the live sync's start), and a block
 * of 5,000 mixed transactions mined while it follows the head. The indexer runs as the launcher
 * runs it (its supervisor, the default heap limit): no crash, no restart, no RPC request timed
 * out, and every table equal to the contracts' state.
 */
import { readFileSync } from "node:fs";
import pg from "pg";
import { encodeFunctionData, type Address } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PodManagerAbi } from "../../abis";
import { startBenchAnvil } from "../../bench/anvil";
import { blockSender, GAS, generateMarket, type RpcCall } from "../../bench/chain-gen";
import type { Deployment } from "../../chain/deployments";
import type { LocalChain } from "../../devnet/anvil";
import { devnetAccount } from "../../devnet/accounts";
import { deployProtocol } from "../../devnet/deploy";
import { connectProtocol, type Protocol } from "../../devnet/protocol";
import { superviseIndexer, type SupervisedIndexer, type SupervisorEvent } from "../../ops/indexer-supervisor";
import { useFreshDatabase, type FreshDatabase } from "../support/database";
import { eventCounts, headBlock, removeIndexerTestFiles, verifyIndexedState } from "./helpers";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { writeDeployment } from "../../chain/deployments";

const OWNERS = 4;
const VOTERS = 6;
const BUSY = 2_000;
const MIXED = 5_000;
const MIXED_MINTS = 100;

let database: FreshDatabase;
let anvil: LocalChain;
let deployment: Deployment;
let p: Protocol;
let pool: pg.Pool;
let supervised: SupervisedIndexer | undefined;
let logFile: string;
const events: SupervisorEvent[] = [];
const owners = Array.from({ length: OWNERS }, (_, i) => devnetAccount(10 + i).address);
const voters = Array.from({ length: VOTERS }, (_, i) => devnetAccount(10 + OWNERS + i).address);
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "busy-blocks-test-"));

beforeAll(async () => {
  [database, anvil] = await Promise.all([
    useFreshDatabase(),
    startBenchAnvil({ accounts: 10 + OWNERS + VOTERS, gasLimit: BigInt(MIXED) * GAS * 2n }),
  ]);
  deployment = await deployProtocol(anvil.rpcUrl, { podValidityPeriod: 2 });
  p = connectProtocol(anvil.rpcUrl, deployment);
  const market = { datanets: 2, epochs: 1, owners, voters, txPerBlock: BUSY };
  // final before the start: the backfill indexes it
  await generateMarket(anvil.rpcUrl, deployment, { ...market, pods: 50, votes: BUSY });
  // among the last 30 blocks at the start: the live sync fetches them as missing blocks
  await generateMarket(anvil.rpcUrl, deployment, { ...market, pods: 50, votes: 2 * BUSY, tailBlocks: 3 });
  pool = new pg.Pool({ connectionString: database.url, max: 2 });
}, 300_000);

afterAll(async () => {
  await supervised?.stop();
  await pool?.end();
  await anvil?.stop();
  await database?.drop();
  removeIndexerTestFiles();
  if (process.env.INDEXER_TEST_KEEP_LOGS !== "1") fs.rmSync(tmp, { recursive: true, force: true });
});

/** One block of `MIXED` transactions: `MIXED_MINTS` pod mints, the rest votes on the pods there are. */
async function mineMixedBlock(): Promise<void> {
  const podManager = p.address("PodManager");
  const firstSubnet = 1n;
  const nextSubnet = await p.read<bigint>("SubnetManager", "nextSubnetId");
  const nextPod = await p.read<bigint>("PodManager", "nextPodId");
  const send = await blockSender(anvil.rpcUrl, p, [...owners, ...voters]);
  const calls: RpcCall[] = [];
  const tx = (from: Address, functionName: "mintPodWithCORE" | "vote", args: readonly unknown[]) =>
    send.tx(from, podManager, encodeFunctionData({ abi: PodManagerAbi, functionName, args } as never));
  for (let i = 0; i < MIXED; i++) {
    if (i % (MIXED / MIXED_MINTS) === 0) {
      const owner = owners[i % OWNERS]!;
      calls.push(tx(owner, "mintPodWithCORE", [owner, firstSubnet + (BigInt(i) % (nextSubnet - firstSubnet))]));
    } else {
      const podId = 1n + (BigInt(i) % (nextPod - 1n));
      calls.push(tx(voters[i % VOTERS]!, "vote", [podId, BigInt(1 + (i % 5)), i % 4 !== 0]));
    }
  }
  await p.testClient.setAutomine(false);
  try {
    await send.block(calls);
  } finally {
    await p.testClient.setAutomine(true);
  }
  const block = await p.publicClient.getBlock({ blockTag: "latest" });
  expect(block.transactions.length).toBe(MIXED);
  for (const hash of [block.transactions[0]!, block.transactions[MIXED - 1]!]) {
    expect((await p.publicClient.getTransactionReceipt({ hash })).status).toBe("success");
  }
}

describe("busy blocks", () => {
  it("indexes blocks of 2,000 and 5,000 transactions, in backfill and live, with no restart", {
    timeout: 600_000,
  }, async () => {
    const deploymentsFile = path.join(tmp, "deployments.json");
    writeDeployment({ ...deployment, rpcUrl: anvil.rpcUrl }, deploymentsFile);
    logFile = path.join(tmp, "busy.log");
    // the launcher's way: the supervisor, the default heap limit (the environment's, if it sets one, is not ours)
    supervised = await superviseIndexer({
      databaseUrl: database.url,
      schema: "busy",
      viewsSchema: "busy_views",
      rpcUrl: anvil.rpcUrl,
      deploymentsFile,
      logFile,
      env: { INDEXER_MAX_OLD_SPACE_MB: undefined },
      reindexOnDeepReorg: false,
      onEvent: (event) => events.push(event),
    });
    await supervised.current.waitUntilReady(300_000);
    await supervised.current.waitForBlock(await headBlock(p), 300_000);

    // live: a block of 5,000 while it follows the head, then a few more
    await mineMixedBlock();
    await p.testClient.mine({ blocks: 3 });
    await supervised.current.waitForBlock(await headBlock(p), 300_000);

    expect(events).toEqual([]);
    const log = readFileSync(logFile, "utf8");
    expect(log).not.toMatch(/TimeoutError|took too long|heap out of memory/);

    const { indexed, chain } = await eventCounts(p, pool, "busy");
    expect(indexed).toEqual(chain);
    expect(chain.vote).toBe(3 * BUSY + MIXED - MIXED_MINTS);
    expect(chain.pod).toBe(100 + MIXED_MINTS);
    expect(await verifyIndexedState(p, pool, "busy")).toEqual([]);
  });
});
