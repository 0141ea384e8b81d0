/**
 * `npm start`: the whole service on one machine.
 *   - PostgreSQL: DATABASE_URL, else an embedded server with its data in .data/postgres.
 *   - Chain: PONDER_RPC_URL_8453 (+ contract addresses, see README), else a local devnet:
 *     anvil claiming chain id 8453, persisted in .data/devnet, deployed and seeded on first run.
 *   - The Ponder indexer (GraphQL) and, at once, the off-chain migrations and the three API surfaces,
 *     which answer chain routes with 503 until the backfill is done (its progress is logged).
 * Children run in their own process groups, so a terminal's Ctrl-C reaches only this launcher,
 * which stops them in order (API, indexer with SIGINT so its schema is released, anvil, then
 * PostgreSQL). A launcher that was killed leaves them running: the next start stops them first.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { loadConfig } from "../api/config";
import { describeCrashCause, recordIndexerCrash } from "../api/http/indexer-restarts";
import { assertProductionSafe, parseOperatorEnv, processEnv } from "../api/env";
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
import { PROJECT_ROOT, type Indexer } from "../ops/indexer";
import { createProgressTracker, describeProgress, samplePonder } from "../ops/indexer-progress";
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
const launcherEnv = parseOperatorEnv();
const logFormat = logFormatFrom();
const logger = createLogger({ level: launcherEnv.LOG_LEVEL, format: logFormat });
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
    port: launcherEnv.ANVIL_PORT,
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

let demoMetadataStarted = false;
let onIndexerRestart: ((pid: number | undefined) => void) | undefined;
let supervisedIndexer: { current: Indexer } | undefined;

function reportIndexerEvent(event: SupervisorEvent, schema: string): void {
  if (event.kind === "crashed") {
    // the API runs in this process: its /ready, /health and /metrics show the restarts
    const restarts = recordIndexerCrash(event.cause);
    logger.error(
      `indexer crashed: ${describeCrashCause(event.cause)} (exit ${event.code ?? event.signal}${event.line ? `: ${event.line.trim().slice(0, 200)}` : ""}); restart ${event.restarts}${restarts.crashLoop ? `, a crash loop (${restarts.recent} in ${restarts.windowSeconds / 60} min)` : ""}, next in ${event.restartInMs} ms (${indexerLogWhere})`,
    );
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

const BACKFILL_REPORT_MS = 10_000;
const SAMPLE_MS = 1_000;
const LIVE_SAMPLE_MS = 5_000;
const UNREACHABLE_REPORT_MS = 30_000;

/**
 * Follows the indexer (whichever the supervisor runs now) for as long as the launcher runs: its
 * backfill progress (blocks/s, events/s, ETA) every few seconds, its failed RPC requests as they
 * happen, and the moment it is ready, which `onReady` is told of. Nothing here stops anything:
 * a long backfill is only reported.
 */
async function followIndexer(indexer: () => Indexer, head: () => Promise<bigint>, onReady: () => void): Promise<void> {
  const tracker = createProgressTracker();
  const started = Date.now();
  let ready = false;
  let lastReport = 0;
  let rpcErrors = 0;
  let unreachableSince: number | undefined;
  let lastUnreachableReport = 0;
  while (!stopping) {
    const url = indexer().url;
    try {
      const [sample, readyNow, chainHead] = await Promise.all([
        samplePonder(url),
        fetch(`${url}/ready`, { signal: AbortSignal.timeout(2_000) }).then((r) => r.status === 200),
        head().then(Number, () => null),
      ]);
      unreachableSince = undefined;
      const progress = tracker.update(sample, chainHead);
      // a restarted indexer counts from zero again
      if (sample.rpcErrors < rpcErrors) rpcErrors = 0;
      if (sample.rpcErrors > rpcErrors) {
        logger.warn(
          { rpcErrors: sample.rpcErrors },
          `indexer: ${sample.rpcErrors - rpcErrors} RPC request(s) failed (${sample.rpcErrors} since it started; ${indexerLogWhere})`,
        );
        rpcErrors = sample.rpcErrors;
      }
      if (readyNow && !ready) {
        ready = true;
        logger.info({ progress }, `indexer: backfill done in ${Math.round((Date.now() - started) / 1000)} s, at block ${progress.indexedBlock}`);
        onReady();
      } else if (!readyNow && ready) {
        ready = false;
        logger.warn("indexer: not ready (restarted); the API answers chain routes with 503 until it is");
      }
      if (!ready && Date.now() - lastReport >= BACKFILL_REPORT_MS) {
        logger.info({ progress }, `indexer: backfill at ${describeProgress(progress)}`);
        lastReport = Date.now();
      }
    } catch {
      unreachableSince ??= Date.now();
      if (Date.now() - lastUnreachableReport >= UNREACHABLE_REPORT_MS) {
        const seconds = Math.round((Date.now() - unreachableSince) / 1000);
        say(seconds === 0 ? "indexer: starting…" : `indexer: not answering for ${seconds} s (${indexerLogWhere})`);
        lastUnreachableReport = Date.now();
      }
    }
    await new Promise((resolve) => setTimeout(resolve, ready ? LIVE_SAMPLE_MS : SAMPLE_MS));
  }
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

/**
 * The indexer's own lines: with JSON logs, each goes to stdout as a JSON line of its own (marked
 * `service: "indexer"`); in a terminal they go to a bounded file and its warnings and errors are
 * repeated here, so an RPC failure is seen where the launcher's lines are.
 */
const INDEXER_LOG_FILE = path.join(DATA_DIR, "indexer.log");
const indexerLogWhere = logFormat === "json" ? "its lines are marked service=indexer" : "log: .data/indexer.log";

function forwardIndexerLine(line: string): void {
  if (logFormat === "json") {
    let entry: Record<string, unknown> | undefined;
    try {
      const parsed = JSON.parse(line) as unknown;
      if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) entry = parsed as Record<string, unknown>;
    } catch {
      entry = undefined;
    }
    if (entry) process.stdout.write(`${JSON.stringify({ ...entry, service: "indexer" })}\n`);
    else logger.info({ service: "indexer" }, line);
    return;
  }
  const level = /\b(ERROR|FATAL)\b/.test(line) ? "error" : /\bWARN\b/.test(line) ? "warn" : undefined;
  if (level) logger[level](`indexer: ${line.replace(/^\S+\s+(ERROR|FATAL|WARN)\s+/, "").trim()}`);
}

async function main() {
  // before anything is started or generated: the launcher gives the API its own indexer's URL
  assertProductionSafe(processEnv(), ["PONDER_URL"]);
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.on(signal, () => void shutdown(0));
  lock = await LauncherLock.acquire(DATA_DIR, (role, pid) => say(`stopped a ${role} (pid ${pid}) left running by an earlier start`));
  const database: DatabaseHandle = await resolveDatabase({ dataDir: path.join(DATA_DIR, "postgres") });
  stack.push({ name: "postgres", stop: () => database.stop() });
  lock.track("postgres", database.pid);
  say(`postgres: ${database.dataDir ? `embedded, data in ${path.relative(process.cwd(), database.dataDir)}` : "DATABASE_URL"}`);

  const { chain, fresh, seed } = await startChain();
  const protocol = loadProtocolConfig({ ...processEnv(), ...(chain ? { PONDER_RPC_URL_8453: chain.rpcUrl } : {}) });
  const client = createChainClient(protocol);
  const head = () => client.getBlockNumber({ cacheTime: 0 });

  // the contracts as the indexer child resolves them: with a devnet it reads only the deployments file
  const schema = indexerSchemaName(resolveContracts(chain ? {} : processEnv(), readDeployment()), PROJECT_ROOT);
  const operatorEnv = parseOperatorEnv();
  const supervised = await superviseIndexer({
    databaseUrl: database.url,
    schema,
    viewsSchema: operatorEnv.PONDER_VIEWS_SCHEMA,
    rpcUrl: chain?.rpcUrl,
    deploymentsFile: chain ? deploymentsFile() : undefined,
    port: operatorEnv.PONDER_PORT,
    // GraphQL's bind address: 0.0.0.0 (or ::) to serve it to other machines
    hostname: operatorEnv.PONDER_HOST,
    logFormat,
    ...(logFormat === "json" ? {} : { logFile: INDEXER_LOG_FILE }),
    onLog: forwardIndexerLine,
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
  say(`indexer: schema ${schema} (${indexerLogWhere})`);

  // the API serves at once: /health answers, /ready and the chain routes say 503 until the indexer is ready
  const config = loadConfig({ ...processEnv(), DATABASE_URL: database.url, PONDER_URL: supervised.url });
  const api: ApiServer = await startApiServer(config, { logger });
  stack.push({ name: "api", stop: () => api.close() });
  void followIndexer(indexer, head, () => {
    if (seed && !demoMetadataStarted) {
      demoMetadataStarted = true;
      void addDemoMetadata(api.urls.platform, seed, indexer, head);
    }
  });

  const urls = {
    ...(chain ? { chain: chain.rpcUrl } : {}),
    graphql: `${supervised.url}/graphql`,
    platform: `${api.urls.platform}/api/v1`,
    chat: api.urls.chat,
    eval: `${api.urls.eval}/api/v1`,
  };
  if (logFormat === "json") {
    logger.info({ urls }, "Data market is running (chain routes answer 503 until the indexer is ready: see /ready)");
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
      `  try: curl ${urls.platform}/stats   (503 until the indexer's backfill is done: see ${api.urls.platform}/ready)`,
      "Ctrl-C stops everything.",
    ].join("\n"),
  );
}

main().catch(async (error) => {
  logger.error(error instanceof Error ? error.message : String(error));
  await shutdown(1);
});
