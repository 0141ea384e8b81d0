import { loadConfig } from "./config";
import { createLogger } from "./http/logger";
import { startApiServer } from "./server";

const config = loadConfig();
const logger = createLogger(config.logLevel);
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
