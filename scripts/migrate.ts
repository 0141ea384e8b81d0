/**
 * `npm run migrate`: applies the off-chain migrations (schema `offchain`) to DATABASE_URL and
 * exits. Safe to run from several replicas at once: they serialise on an advisory lock
 * (api/db/migrate.ts), one applies each migration and the others find nothing left to do. The
 * API also migrates on start; a deployment runs this first, as its own step.
 */
import { parseOperatorEnv } from "../api/env";
import { MIGRATIONS_SCHEMA, runMigrations } from "../api/db/migrate";
import { exitWithUsage, parseCommandLine } from "../ops/cli";
import { createLogger, logFormatFrom } from "../ops/logger";

const USAGE = `Usage: npm run migrate
  Applies the off-chain migrations (schema ${MIGRATIONS_SCHEMA}) to DATABASE_URL and exits 0;
  several replicas may run it at once. Environment: DATABASE_URL (required), LOG_LEVEL, LOG_FORMAT.`;

parseCommandLine({ usage: USAGE, options: {} });

const env = parseOperatorEnv();
if (!env.DATABASE_URL) exitWithUsage(USAGE, "DATABASE_URL is not set");
const logger = createLogger({ level: env.LOG_LEVEL, format: logFormatFrom({ LOG_FORMAT: env.LOG_FORMAT }) });
const started = Date.now();
try {
  await runMigrations(env.DATABASE_URL);
  logger.info({ schema: MIGRATIONS_SCHEMA, ms: Date.now() - started }, "off-chain migrations applied");
} catch (error) {
  logger.error({ err: error }, "off-chain migrations failed");
  process.exitCode = 1;
}
