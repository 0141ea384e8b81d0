/**
 * `npm run graphql`: a read-only GraphQL replica (`ponder serve`) on the views schema the
 * indexer publishes: any number of them beside one `npm run indexer`, on the same database. It
 * waits for the views schema to exist (the indexer creates it once its first backfill is done),
 * then serves; it never writes. Stops with SIGINT/SIGTERM.
 */
import { spawn } from "node:child_process";
import { realpathSync } from "node:fs";
import path from "node:path";
import pg from "pg";
import { parseOperatorEnv, processEnv } from "../api/env";
import { exitWithUsage, parseCommandLine } from "../ops/cli";
import { createLogger, logFormatFrom } from "../ops/logger";
import { PROJECT_ROOT } from "../ops/project-root";

const USAGE = `Usage: npm run graphql
  Serves GraphQL (ponder serve) from the views schema the indexer publishes, read-only, until
  SIGINT/SIGTERM; waits for that schema first. Environment: DATABASE_URL (required), the
  indexer's chain settings (PONDER_RPC_URL_8453, contract addresses or DEPLOYMENTS_FILE: Ponder
  loads the same config), PONDER_VIEWS_SCHEMA (default chain), PONDER_HOST (default 127.0.0.1),
  PONDER_PORT (default 42069), LOG_LEVEL, LOG_FORMAT.`;

parseCommandLine({ usage: USAGE, options: {} });

let env: ReturnType<typeof parseOperatorEnv>;
try {
  env = parseOperatorEnv();
  if (!env.DATABASE_URL) throw new Error("DATABASE_URL is not set");
} catch (error) {
  exitWithUsage(USAGE, (error as Error).message);
}
const format = logFormatFrom({ LOG_FORMAT: env.LOG_FORMAT });
const logger = createLogger({ level: env.LOG_LEVEL, format });

let stopping = false;
let child: ReturnType<typeof spawn> | undefined;
function stop(): void {
  if (stopping) return;
  stopping = true;
  if (child) child.kill("SIGINT");
  else process.exit(0);
}
process.once("SIGINT", stop);
process.once("SIGTERM", stop);

async function viewsSchemaExists(databaseUrl: string, schema: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: databaseUrl, application_name: "graphql-wait" });
  client.on("error", () => undefined);
  try {
    await client.connect();
    const { rowCount } = await client.query("SELECT 1 FROM pg_namespace WHERE nspname = $1", [schema]);
    return (rowCount ?? 0) > 0;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

let waiting = false;
while (!(await viewsSchemaExists(env.DATABASE_URL, env.PONDER_VIEWS_SCHEMA))) {
  if (!waiting) logger.info({ schema: env.PONDER_VIEWS_SCHEMA }, "graphql: waiting for the indexer to publish the views schema");
  waiting = true;
  await new Promise((resolve) => setTimeout(resolve, 2_000));
}

const childEnv: NodeJS.ProcessEnv = { NO_COLOR: "1", ...processEnv(), PONDER_TELEMETRY_DISABLED: "true" };
// Ponder reads these itself and they would override the command line
for (const name of ["PORT", "DATABASE_SCHEMA", "DATABASE_VIEWS_SCHEMA", "PONDER_LOG_LEVEL"]) delete childEnv[name];
const ponder = realpathSync(path.join(PROJECT_ROOT, "node_modules", ".bin", "ponder"));
const logLevel = ["fatal", "silent"].includes(env.LOG_LEVEL) ? "error" : env.LOG_LEVEL;
child = spawn(
  process.execPath,
  [
    ponder,
    "serve",
    "--schema",
    env.PONDER_VIEWS_SCHEMA,
    "--port",
    String(env.PONDER_PORT),
    "--hostname",
    env.PONDER_HOST,
    "--log-level",
    logLevel,
    "--log-format",
    format,
  ],
  { cwd: PROJECT_ROOT, env: childEnv, stdio: ["ignore", "inherit", "inherit"] },
);
child.once("exit", (code, signal) => process.exit(stopping ? 0 : (code ?? (signal ? 1 : 0))));
