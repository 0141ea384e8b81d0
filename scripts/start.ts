/**
 * `npm start`: the whole service on one machine.
 *   - PostgreSQL: DATABASE_URL, else an embedded server with its data in .data/postgres.
 *   - Chain: PONDER_RPC_URL_8453 (+ contract addresses, see README), else a local devnet:
 *     anvil claiming chain id 8453, persisted in .data/devnet, deployed and seeded on first run.
 *   - Off-chain migrations, the Ponder indexer (GraphQL), then the three API surfaces.
 * Children run in their own process groups, so a terminal's Ctrl-C reaches only this launcher,
 * which stops them in order (API, indexer with SIGINT so its schema is released, anvil, then
 * PostgreSQL). A launcher that was killed leaves them running: the next start stops them first.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { loadConfig } from "../api/config";
import { assertProductionSafe } from "../api/env";
import { startApiServer, type ApiServer } from "../api/server";
import { createChainClient } from "../chain/client";
import { deploymentsFile, readDeployment, writeDeployment } from "../chain/deployments";
import { loadProtocolConfig, primaryRpcUrl } from "../chain/protocol-config";
import { startAnvil, type LocalChain } from "../devnet/anvil";
import { devnetClients } from "../devnet/clients";
import { describeDemoMetadata, publishDemoMetadata } from "../devnet/demo-metadata";
import { deployProtocol } from "../devnet/deploy";
import { seedDemo, type SeedSummary } from "../devnet/seed";
import { parseCommandLine } from "../ops/cli";
import { indexerSchemaName } from "../ops/deployment-schema";
import { DEFAULT_VIEWS_SCHEMA, indexerStatus, PROJECT_ROOT, type Indexer } from "../ops/indexer";
import { RECOVERY_COMMAND, superviseIndexer, type SupervisorEvent } from "../ops/indexer-supervisor";
import { LauncherLock } from "../ops/leftovers";
import { createLogger, logFormatFrom } from "../ops/logger";
import { resolveContracts } from "../ops/ponder-env";
import { resolveDatabase, type DatabaseHandle } from "../ops/postgres";

parseCommandLine({
  usage: `Usage: npm start
  Starts the whole service: PostgreSQL (DATABASE_URL, else embedded in .data/postgres), the
  chain (PONDER_RPC_URL_8453 and the contract addresses, else a local anvil devnet in
  .data/devnet), the indexer, and the Platform, Chat and Evaluation APIs. Every setting is an
  environment variable (README: Configuration; .env.example). Ctrl-C stops everything.`,
  options: {},
});

// like every other default path of the project (deployments file, key files), relative to the working directory
const DATA_DIR = path.resolve(".data");
const DEVNET_DIR = path.join(DATA_DIR, "devnet");
const logFormat = logFormatFrom();
const logger = createLogger({ level: (process.env.LOG_LEVEL as "info" | undefined) ?? "info", format: logFormat });
const say = (line: string) => logger.info(line);
/** Kept beside the chain state, so a later start can still give the seed its metadata (idempotent). */
const SEED_SUMMARY_FILE = path.join(DEVNET_DIR, "seed-summary.json");

function readSeedSummary(): SeedSummary | undefined {
  return existsSync(SEED_SUMMARY_FILE) ? (JSON.parse(readFileSync(SEED_SUMMARY_FILE, "utf8")) as SeedSummary) : undefined;
}

const stack: { name: string; stop: () => Promise<unknown> }[] = [];
let stopping = false;
let lock: LauncherLock | undefined;

async function shutdown(code: number): Promise<never> {
  if (!stopping) {
    stopping = true;
    const started = Date.now();
    say("stopping…");
    for (const { name, stop } of stack.reverse()) {
      await stop().catch((error) => logger.error(`stopping ${name}: ${String(error)}`));
    }
    lock?.release();
    say(`stopped in ${Date.now() - started} ms`);
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
  lock?.track("anvil", chain.pid);
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

let onIndexerRestart: ((pid: number | undefined) => void) | undefined;
let supervisedIndexer: { current: Indexer } | undefined;

function reportIndexerEvent(event: SupervisorEvent, schema: string): void {
  if (event.kind === "crashed") {
    logger.error(`indexer exited (${event.code ?? event.signal}); restarting in ${event.restartInMs} ms (log: .data/indexer.log)`);
  } else if (event.kind === "restarted") {
    logger.warn(`indexer restarted (attempt ${event.attempt})`);
    onIndexerRestart?.(supervisedIndexer?.current.process.pid);
  } else if (event.recovery === "reindexing") {
    logger.error(`indexer: the chain reorganised deeper than the finality depth (${event.line.trim()}); reindexing schema ${schema} from the local chain`);
  } else {
    logger.error(
      `indexer: the chain reorganised deeper than the finality depth (${event.line.trim()}); the indexed state cannot follow it. Stop the service and run \`${RECOVERY_COMMAND}\` (the API's off-chain data is kept).`,
    );
  }
}

/** Waits until the indexer (whichever the supervisor runs now) has backfilled, printing progress. */
async function reportBackfill(indexer: () => Indexer, head: () => Promise<bigint>): Promise<void> {
  const deadline = Date.now() + 15 * 60_000;
  let lastReport = 0;
  while (Date.now() < deadline) {
    try {
      const status = await indexerStatus(indexer().url);
      if (status.ready) return;
      const block = Object.values(status.chains)[0]?.block.number;
      if (Date.now() - lastReport >= 2_000 && block !== undefined) {
        say(`indexer: backfill at block ${block} of ${await head()}`);
        lastReport = Date.now();
      }
    } catch {
      if (Date.now() - lastReport >= 2_000) {
        say("indexer: starting…");
        lastReport = Date.now();
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error("the indexer did not finish its backfill within 15 minutes (log: .data/indexer.log)");
}

/** Gives the seeded datanets and pods their off-chain metadata through the API (skips what has it); never fails the start. */
async function addDemoMetadata(platformUrl: string, seed: SeedSummary, indexer: () => Indexer, head: () => Promise<bigint>) {
  try {
    // the public lists show indexed state: let the indexer reach the seed's last block first
    await indexer().waitForBlock(await head(), 60_000);
    const result = await publishDemoMetadata({ platformUrl, summary: seed });
    const failed = [...result.subnets, ...result.pods].some((item) => item.status === "failed");
    say(`${failed ? "warning: " : ""}demo metadata: ${describeDemoMetadata(result)}`);
  } catch (error) {
    say(`warning: demo metadata not added: ${error instanceof Error ? error.message : String(error)}`);
  }
}

async function main() {
  // before anything is started or generated: the launcher gives the API its own indexer's URL
  assertProductionSafe(process.env, ["PONDER_URL"]);
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.on(signal, () => void shutdown(0));
  lock = await LauncherLock.acquire(DATA_DIR, (role, pid) => say(`stopped a ${role} (pid ${pid}) left running by an earlier start`));
  const database: DatabaseHandle = await resolveDatabase({ dataDir: path.join(DATA_DIR, "postgres") });
  stack.push({ name: "postgres", stop: () => database.stop() });
  lock.track("postgres", database.pid);
  say(`postgres: ${database.dataDir ? `embedded, data in ${path.relative(process.cwd(), database.dataDir)}` : "DATABASE_URL"}`);

  const { chain, fresh, seed } = await startChain();
  const protocol = loadProtocolConfig({ ...process.env, ...(chain ? { PONDER_RPC_URL_8453: chain.rpcUrl } : {}) });
  const client = createChainClient(protocol);
  const head = () => client.getBlockNumber({ cacheTime: 0 });

  // the contracts as the indexer child resolves them: with a devnet it reads only the deployments file
  const schema = indexerSchemaName(resolveContracts(chain ? {} : process.env, readDeployment()), PROJECT_ROOT);
  const supervised = await superviseIndexer({
    databaseUrl: database.url,
    schema,
    viewsSchema: process.env.PONDER_VIEWS_SCHEMA || DEFAULT_VIEWS_SCHEMA,
    rpcUrl: chain?.rpcUrl,
    deploymentsFile: chain ? deploymentsFile() : undefined,
    port: Number(process.env.PONDER_PORT ?? 42069),
    logFile: path.join(DATA_DIR, "indexer.log"),
    // a new local chain reuses block numbers of the old one: drop Ponder's raw-data cache
    clearSyncCache: fresh,
    reindexOnDeepReorg: chain !== undefined,
    onEvent: (event) => reportIndexerEvent(event, schema),
  });
  const indexer = () => supervised.current;
  stack.push({ name: "indexer", stop: () => supervised.stop() });
  lock.track("indexer", indexer().process.pid);
  onIndexerRestart = (pid) => lock?.track("indexer", pid);
  supervisedIndexer = supervised;
  say(`indexer: schema ${schema}, log in .data/indexer.log`);
  await reportBackfill(indexer, head);
  say("indexer: backfill done");

  const config = loadConfig({ ...process.env, DATABASE_URL: database.url, PONDER_URL: supervised.url });
  const api: ApiServer = await startApiServer(config, { logger });
  stack.push({ name: "api", stop: () => api.close() });
  if (seed) await addDemoMetadata(api.urls.platform, seed, indexer, head);

  const urls = {
    ...(chain ? { chain: chain.rpcUrl } : {}),
    graphql: `${supervised.url}/graphql`,
    platform: `${api.urls.platform}/api/v1`,
    chat: api.urls.chat,
    eval: `${api.urls.eval}/api/v1`,
  };
  if (logFormat === "json") {
    logger.info({ urls }, "Data market is running");
    return;
  }
  console.log(
    [
      "",
      "Data market is running:",
      ...(chain ? [`  chain (anvil, id 8453)  ${chain.rpcUrl}`] : []),
      `  GraphQL                 ${urls.graphql}`,
      `  Platform API            ${urls.platform}   (docs: ${api.urls.platform}/docs)`,
      `  Chat server             ${urls.chat}   (docs: ${api.urls.chat}/docs)`,
      `  Evaluation API          ${urls.eval}   (docs: ${api.urls.eval}/docs)`,
      `  try: curl ${urls.platform}/stats`,
      "Ctrl-C stops everything.",
    ].join("\n"),
  );
}

main().catch(async (error) => {
  logger.error(error instanceof Error ? error.message : String(error));
  await shutdown(1);
});
