/**
 * The busy-block chain (issue 40): a fresh protocol on anvil with blocks of BUSY_TX_PER_BLOCK
 * (default 2,000) protocol transactions (pod mints, then votes, bench/chain-gen.ts generateMarket),
 * indexed once by this indexer with the heap limit of INDEXER_MAX_OLD_SPACE_MB (unset: the
 * launcher's default; 0: node's own), under the launcher's supervisor. Prints the time to ready
 * and to the head, transactions/s, peak RSS and the restarts the supervisor counted.
 *   npx tsx bench/busy-blocks.ts     BUSY_PODS (default 2,000), BUSY_VOTES (default 10,000),
 *                                    BUSY_TAIL_BLOCKS (default 0: the busy blocks are among the 30
 *                                    the live sync starts behind; 40: all final, the backfill's),
 *                                    BUSY_DEADLINE_S (default 3,600)
 * Uses DATABASE_URL when set, else an embedded PostgreSQL in a temp folder.
 */
import { spawnSync } from "node:child_process";
import os from "node:os";
import path from "node:path";
import { writeDeployment } from "../chain/deployments";
import { devnetAccount } from "../devnet/accounts";
import { deployProtocol } from "../devnet/deploy";
import { superviseIndexer } from "../ops/indexer-supervisor";
import { createDatabase, dropDatabase, urlWithDatabase } from "../ops/postgres";
import { startBenchAnvil } from "./anvil";
import { GAS, generateMarket } from "./chain-gen";
import { benchPostgres } from "./postgres";
import { benchTempDir } from "./temp-dir";

const TX_PER_BLOCK = Number(process.env.BUSY_TX_PER_BLOCK ?? 2_000);
const PODS = Number(process.env.BUSY_PODS ?? 2_000);
const VOTES = Number(process.env.BUSY_VOTES ?? 10_000);
/** Empty blocks after the market: 0 (default) leaves the busy blocks to Ponder's live sync, 40 to its backfill. */
const TAIL_BLOCKS = Number(process.env.BUSY_TAIL_BLOCKS ?? 0);
const OWNERS = 10;
const VOTERS = 10;
const EPOCHS = 2;
const DATANETS = 4;
/** Gives up after this many seconds (an indexer in a crash loop never gets there). */
const DEADLINE_S = Number(process.env.BUSY_DEADLINE_S ?? 3_600);

const seconds = (since: number) => (performance.now() - since) / 1000;

async function main() {
  console.log(
    `busy-block bench: ${os.cpus().length} × ${os.cpus()[0]?.model ?? "cpu"}, load ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}`,
  );
  const { serverUrl, stop: stopPostgres } = await benchPostgres();
  const dbName = `bench_busy_${Date.now()}`;
  await createDatabase(serverUrl, dbName);
  const databaseUrl = urlWithDatabase(serverUrl, dbName);
  const tmp = benchTempDir("bench-busy-");
  const owners = Array.from({ length: OWNERS }, (_, i) => devnetAccount(10 + i).address);
  const voters = Array.from({ length: VOTERS }, (_, i) => devnetAccount(10 + OWNERS + i).address);
  const anvil = await startBenchAnvil({ accounts: 10 + OWNERS + VOTERS, gasLimit: BigInt(TX_PER_BLOCK) * GAS * 2n });
  try {
    const deployment = await deployProtocol(anvil.rpcUrl, { podValidityPeriod: EPOCHS });
    const deploymentsFile = path.join(tmp, "deployments.json");
    writeDeployment({ ...deployment, rpcUrl: anvil.rpcUrl }, deploymentsFile);
    let t = performance.now();
    const market = await generateMarket(anvil.rpcUrl, deployment, {
      pods: PODS,
      votes: VOTES,
      datanets: DATANETS,
      epochs: EPOCHS,
      owners,
      voters,
      txPerBlock: TX_PER_BLOCK,
      tailBlocks: TAIL_BLOCKS,
    });
    console.log(
      `chain: ${PODS} pods, ${VOTES} votes in ${market.transactions} transactions, ${market.blocks} blocks of up to ${TX_PER_BLOCK}: ${seconds(t).toFixed(0)} s`,
    );

    // what Ponder's live sync asks for each new block: the whole block with its transactions
    const busiest = market.head - BigInt(TAIL_BLOCKS);
    t = performance.now();
    const full = await fetch(anvil.rpcUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "eth_getBlockByNumber",
        params: [`0x${busiest.toString(16)}`, true],
      }),
    }).then((response) => response.text());
    console.log(
      `eth_getBlockByNumber(${busiest}, true) on the idle node: ${(full.length / 2 ** 20).toFixed(1)} MB in ${seconds(t).toFixed(1)} s`,
    );

    const restarts: string[] = [];
    t = performance.now();
    const supervised = await superviseIndexer({
      databaseUrl,
      schema: "busy",
      viewsSchema: "busy_views",
      rpcUrl: anvil.rpcUrl,
      deploymentsFile,
      logLevel: "warn",
      logFile: path.join(tmp, "indexer.log"),
      reindexOnDeepReorg: false,
      onEvent: (event) => {
        if (event.kind === "crashed") restarts.push(`${event.cause ?? "unknown"} (${event.code ?? event.signal})`);
      },
    });
    let peak = 0;
    const sampler = setInterval(() => {
      const pid = supervised.current.process.pid;
      const out = spawnSync("ps", ["-o", "rss=", "-p", String(pid)], { encoding: "utf8" }).stdout.trim();
      peak = Math.max(peak, Number(out) || 0);
    }, 200);
    const deadline = Date.now() + DEADLINE_S * 1000;
    while (Date.now() < deadline) {
      try {
        await supervised.current.waitUntilReady(5_000);
        break;
      } catch {
        // a restart replaced it, or not ready yet
      }
    }
    const ready = seconds(t);
    while (Date.now() < deadline) {
      try {
        await supervised.current.waitForBlock(market.head, 5_000);
        break;
      } catch {
        // a restart replaced it, or not there yet
      }
    }
    const atHead = seconds(t);
    const indexedTo = await fetch(`${supervised.current.url}/status`)
      .then((response) => response.json() as Promise<Record<string, { block: { number: number } }>>)
      .then((status) => Object.values(status)[0]?.block.number)
      .catch(() => undefined);
    clearInterval(sampler);
    await supervised.stop();
    const events = market.transactions;
    console.log(
      `indexer (heap limit ${process.env.INDEXER_MAX_OLD_SPACE_MB ?? "default"}): at block ${indexedTo ?? "?"} of ${market.head}; ready in ${ready.toFixed(1)} s, at the head in ${atHead.toFixed(1)} s (${(events / atHead).toFixed(0)} transactions/s), peak RSS ${(peak / 1024).toFixed(0)} MB, restarts ${restarts.length}${restarts.length ? `: ${restarts.join(", ")}` : ""}`,
    );
  } finally {
    await anvil.stop();
    await dropDatabase(serverUrl, dbName).catch(() => undefined);
    await stopPostgres();
  }
}

await main();
