import { parseCommandLine } from "../ops/cli";
import { loadConfig } from "./config";
import { createLogger } from "./http/logger";
import { startApiServer } from "./server";

parseCommandLine({
  usage: `Usage: npm run api
  Runs the three API surfaces only (for replicas beside one indexer); every setting is an
  environment variable (see README: Configuration). Stop with SIGINT or SIGTERM.`,
  options: {},
});

let config: ReturnType<typeof loadConfig>;
try {
  config = loadConfig();
} catch (error) {
  // one line naming every problem, not a stack trace
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}
const logger = createLogger(config.logLevel, { format: config.logFormat });
const server = await startApiServer(config, { logger });
logger.info({ urls: server.urls }, "API listening");

let closing = false;
function shutdown(signal: NodeJS.Signals): void {
  if (closing) return;
  closing = true;
  logger.info({ signal }, "shutting down");
  server.close().then(
    () => process.exit(0),
    (err: unknown) => {
      logger.error({ err }, "shutdown failed");
      process.exit(1);
    },
  );
}
process.once("SIGINT", shutdown);
process.once("SIGTERM", shutdown);
