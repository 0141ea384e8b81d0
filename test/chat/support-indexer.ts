import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { writeDeployment, type Deployment } from "../../chain/deployments";
import { startIndexer, type Indexer } from "../../ops/indexer";

/**
 * Writes the deployment to a temp file and starts the indexer on it (views in `chain`); output to
 * a log file. Its `stop()` also removes that temp directory.
 */
export async function startChatIndexer(deployment: Deployment, databaseUrl: string, schema: string): Promise<Indexer> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "chat-indexer-"));
  const removeDir = () => fs.rmSync(dir, { recursive: true, force: true });
  const deploymentsFile = path.join(dir, "deployments.json");
  writeDeployment(deployment, deploymentsFile);
  let indexer: Indexer;
  try {
    indexer = await startIndexer({
      databaseUrl,
      schema,
      deploymentsFile,
      ...(process.env.INDEXER_TEST_LOGS === "1" ? { logPrefix: `[${schema}] ` } : { logFile: path.join(dir, "indexer.log") }),
    });
  } catch (error) {
    removeDir();
    throw error;
  }
  const stop = indexer.stop;
  indexer.stop = async () => {
    try {
      await stop();
    } finally {
      removeDir();
    }
  };
  return indexer;
}
