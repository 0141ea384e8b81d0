/**
 * `npm run indexer`: the Ponder indexer (`ponder start` with this project's ponder.config.ts,
 * ponder.schema.ts and src/) as one foreground process for a process manager: its own schema
 * (named after the contracts and the indexing code, so a new version backfills beside the old
 * one) and the stable views schema the API and `npm run graphql` read, switched to this version
 * in one transaction once it has reached the chain head (ops/views-publish.ts). Its log lines go to
 * stdout (JSON unless LOG_FORMAT=pretty or a terminal); it exits with Ponder's exit code, and
 * SIGINT/SIGTERM stop it in order (Ponder releases its schema lock).
 */
import { parseEnv, parseOperatorEnv, processEnv } from "../api/env";
import { readDeployment } from "../chain/deployments";
import { createChainClient } from "../chain/client";
import { isLoopbackUrl, primaryRpcUrl } from "../chain/protocol-config";
import { exitWithUsage, parseCommandLine } from "../ops/cli";
import { indexerSchemaName } from "../ops/deployment-schema";
import { startIndexer, type IndexerLogLevel } from "../ops/indexer";
import { createLogger, logFormatFrom } from "../ops/logger";
import { resolveContracts } from "../ops/ponder-env";
import { PROJECT_ROOT } from "../ops/project-root";
import { publishWhenCaughtUp, stagingViewsSchemaFor } from "../ops/views-publish";

const USAGE = `Usage: npm run indexer
  Runs the indexer (ponder start) in the foreground until SIGINT/SIGTERM. Environment:
  DATABASE_URL (required), PONDER_RPC_URL_8453 and the contract addresses with START_BLOCK
  (or DEPLOYMENTS_FILE), PONDER_VIEWS_SCHEMA (default chain), PONDER_SCHEMA (default: derived
  from the contracts and the indexing code), PONDER_HOST (default 127.0.0.1), PONDER_PORT
  (default 42069), INDEXER_MAX_LAG_BLOCKS (default 10), LOG_LEVEL, LOG_FORMAT. Health: GET /ready
  on that port (200 once the backfill is done), metrics: GET /metrics (docs/deploy.md).
  A new version (a new schema) backfills beside the running one and switches the views schema to
  itself in one transaction once it is within INDEXER_MAX_LAG_BLOCKS of the chain head; then
  stop the old version (docs/deploy.md, "Upgrades").`;

parseCommandLine({ usage: USAGE, options: {} });

let env: ReturnType<typeof parseOperatorEnv>;
let schema: string;
let rpcUrl: string;
let maxLagBlocks: number;
try {
  env = parseOperatorEnv();
  if (!env.DATABASE_URL) throw new Error("DATABASE_URL is not set");
  const deployment = readDeployment();
  schema = env.PONDER_SCHEMA ?? indexerSchemaName(resolveContracts(processEnv(), deployment), PROJECT_ROOT);
  const url = primaryRpcUrl() ?? deployment?.rpcUrl;
  if (!url) throw new Error("PONDER_RPC_URL_8453 is not set");
  rpcUrl = url;
  maxLagBlocks = parseEnv().INDEXER_MAX_LAG_BLOCKS;
} catch (error) {
  exitWithUsage(USAGE, (error as Error).message);
}
const logger = createLogger({ level: env.LOG_LEVEL, format: logFormatFrom({ LOG_FORMAT: env.LOG_FORMAT }) });
// Ponder publishes its views at the end of its backfill, into a staging schema of this version;
// the stable one is switched below once this version has reached the head
const stagingViewsSchema = stagingViewsSchemaFor(env.PONDER_VIEWS_SCHEMA, schema);

const ponderLevel: Record<typeof env.LOG_LEVEL, IndexerLogLevel> = {
  fatal: "error",
  error: "error",
  warn: "warn",
  info: "info",
  debug: "debug",
  trace: "trace",
  silent: "error",
};

const indexer = await startIndexer({
  databaseUrl: env.DATABASE_URL,
  schema,
  viewsSchema: stagingViewsSchema,
  hostname: env.PONDER_HOST,
  port: env.PONDER_PORT,
  logLevel: ponderLevel[env.LOG_LEVEL],
  logFormat: logFormatFrom({ LOG_FORMAT: env.LOG_FORMAT }),
  onLog: (line) => process.stdout.write(`${line}\n`),
  detached: false,
});

const publishing = new AbortController();
const chain = createChainClient({ rpcUrl, local: isLoopbackUrl(rpcUrl) });
let lastWait = 0;
void publishWhenCaughtUp({
  databaseUrl: env.DATABASE_URL,
  schema,
  viewsSchema: env.PONDER_VIEWS_SCHEMA,
  stagingViewsSchema,
  maxLagBlocks,
  chainHead: () => chain.getBlockNumber({ cacheTime: 0 }),
  signal: publishing.signal,
  onWaiting: (indexed, head) => {
    if (Date.now() - lastWait < 30_000) return;
    lastWait = Date.now();
    logger.info({ schema, indexedBlock: indexed, chainBlock: Number(head) }, `indexer: ${env.PONDER_VIEWS_SCHEMA} switches to this version once it reaches the chain head`);
  },
  onError: (error) => logger.warn({ err: error }, "indexer: publishing the views failed; trying again"),
}).then((switched) => {
  if (switched) {
    logger.info(
      { schema, viewsSchema: env.PONDER_VIEWS_SCHEMA, previous: switched.previous, block: switched.block, views: switched.views },
      `indexer: ${env.PONDER_VIEWS_SCHEMA} now shows ${schema}${switched.previous && switched.previous !== schema ? ` (was ${switched.previous}: stop that version)` : ""}`,
    );
  }
});

let stopping = false;
function stop(): void {
  if (stopping) return;
  stopping = true;
  publishing.abort();
  void indexer.stop();
}
process.once("SIGINT", stop);
process.once("SIGTERM", stop);

const { code, signal } = await indexer.exited;
process.exit(stopping ? 0 : (code ?? (signal ? 1 : 0)));
