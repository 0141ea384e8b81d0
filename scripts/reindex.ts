/**
 * Recovery after a reorg deeper than the finality depth (or any indexed state to rebuild):
 * drops the indexer's schema for the current deployment and Ponder's raw-data cache for Base,
 * so the next `npm start` reindexes from the chain. The API's off-chain schema is untouched.
 */
import { readDeployment } from "../chain/deployments";
import { primaryRpcUrl } from "../chain/protocol-config";
import { parseCommandLine } from "../ops/cli";
import { indexerSchemaName } from "../ops/deployment-schema";
import { clearSyncCache, PROJECT_ROOT } from "../ops/indexer";
import { dropIndexerSchema } from "../ops/indexer-supervisor";
import { launcherRunning } from "../ops/leftovers";
import { resolveContracts } from "../ops/ponder-env";
import { resolveDatabase } from "../ops/postgres";
import path from "node:path";
import { processEnv } from "../api/env";

const { values } = parseCommandLine({
  usage: `Usage: npm run reindex [-- --keep-rpc-cache]
  Drops the indexer's schema for the current deployment so the next \`npm start\` reindexes it;
  the API's off-chain data (schema offchain) is kept. Stop the service first.
  --keep-rpc-cache   keep Ponder's cached RPC data (a reindex after a code change; not after a deep reorg)`,
  options: { "keep-rpc-cache": { type: "boolean", default: false } },
});

const running = launcherRunning(path.resolve(".data"));
if (running) {
  console.error(`npm start is running (pid ${running}): stop it first`);
  process.exit(1);
}
const localDevnet = !primaryRpcUrl();
const schema = indexerSchemaName(resolveContracts(localDevnet ? {} : processEnv(), readDeployment()), PROJECT_ROOT);
const database = await resolveDatabase();
try {
  await dropIndexerSchema(database.url, schema);
  if (!values["keep-rpc-cache"]) await clearSyncCache(database.url);
  console.log(`dropped schema ${schema}${values["keep-rpc-cache"] ? "" : " and the RPC cache"}; the next npm start reindexes`);
} finally {
  await database.stop();
}
