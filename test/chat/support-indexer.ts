import path from "node:path";
import { writeDeployment, type Deployment } from "../../chain/deployments";
import { startIndexer, type Indexer } from "../../ops/indexer";
import { tempDirRemovedAtExit } from "../../ops/temp-dir";

/**
 * Writes the deployment to a temp file and starts the indexer on it (views in `chain`); output to
 * a log file. Its `stop()` also removes that temp directory.
 */
export async function startChatIndexer(deployment: Deployment, databaseUrl: string, schema: string): Promise<Indexer> {
  const dir = tempDirRemovedAtExit("chat-indexer-");
  const deploymentsFile = path.join(dir.path, "deployments.json");
  writeDeployment(deployment, deploymentsFile);
  let indexer: Indexer;
  try {
    indexer = await startIndexer({
      databaseUrl,
      schema,
      deploymentsFile,
      ...(process.env.INDEXER_TEST_LOGS === "1" ? { logPrefix: `[${schema}] ` } : { logFile: path.join(dir.path, "indexer.log") }),
    });
  } catch (error) {
    dir.remove();
    throw error;
  }
  const stop = indexer.stop;
  indexer.stop = async () => {
    try {
      await stop();
    } finally {
      dir.remove();
    }
  };
  return indexer;
}
