/**
 * `npm run indexer`: the Ponder indexer (`ponder start` with this project's ponder.config.ts,
 * ponder.schema.ts and src/) as one foreground process for a process manager: its own schema
 * (named after the contracts and the indexing code, so a new version backfills beside the old
 * one) and the stable views schema the API and `npm run graphql` read. Its log lines go to
 * stdout (JSON unless LOG_FORMAT=pretty or a terminal); it exits with Ponder's exit code, and
 * SIGINT/SIGTERM stop it in order (Ponder releases its schema lock).
 */
import { parseOperatorEnv, processEnv } from "../api/env";
import { readDeployment } from "../chain/deployments";
import { exitWithUsage, parseCommandLine } from "../ops/cli";
import { indexerSchemaName } from "../ops/deployment-schema";
import { startIndexer, type IndexerLogLevel } from "../ops/indexer";
import { logFormatFrom } from "../ops/logger";
import { resolveContracts } from "../ops/ponder-env";
import { PROJECT_ROOT } from "../ops/project-root";

const USAGE = `Usage: npm run indexer
  Runs the indexer (ponder start) in the foreground until SIGINT/SIGTERM. Environment:
  DATABASE_URL (required), PONDER_RPC_URL_8453 and the contract addresses with START_BLOCK
  (or DEPLOYMENTS_FILE), PONDER_VIEWS_SCHEMA (default chain), PONDER_HOST (default 127.0.0.1),
  PONDER_PORT (default 42069), LOG_LEVEL, LOG_FORMAT. Health: GET /ready on that port (200 once
  the backfill is done), metrics: GET /metrics (docs/deploy.md).`;

parseCommandLine({ usage: USAGE, options: {} });

let env: ReturnType<typeof parseOperatorEnv>;
let schema: string;
try {
  env = parseOperatorEnv();
  if (!env.DATABASE_URL) throw new Error("DATABASE_URL is not set");
  schema = indexerSchemaName(resolveContracts(processEnv(), readDeployment()), PROJECT_ROOT);
} catch (error) {
  exitWithUsage(USAGE, (error as Error).message);
}

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
  viewsSchema: env.PONDER_VIEWS_SCHEMA,
  hostname: env.PONDER_HOST,
  port: env.PONDER_PORT,
  logLevel: ponderLevel[env.LOG_LEVEL],
  logFormat: logFormatFrom({ LOG_FORMAT: env.LOG_FORMAT }),
  onLog: (line) => process.stdout.write(`${line}\n`),
  detached: false,
});

let stopping = false;
function stop(): void {
  if (stopping) return;
  stopping = true;
  void indexer.stop();
}
process.once("SIGINT", stop);
process.once("SIGTERM", stop);

const { code, signal } = await indexer.exited;
process.exit(stopping ? 0 : (code ?? (signal ? 1 : 0)));
