import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { writeDeployment, type Deployment } from "../../chain/deployments";
import { startIndexer, type Indexer } from "../../ops/indexer";

/** Writes the deployment to a temp file and starts the indexer on it (views in `chain`); output to a log file. */
export async function startChatIndexer(deployment: Deployment, databaseUrl: string, schema: string): Promise<Indexer> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "chat-indexer-"));
  const deploymentsFile = path.join(dir, "deployments.json");
  writeDeployment(deployment, deploymentsFile);
  return startIndexer({
    databaseUrl,
    schema,
    deploymentsFile,
    ...(process.env.INDEXER_TEST_LOGS === "1" ? { logPrefix: `[${schema}] ` } : { logFile: path.join(dir, "indexer.log") }),
  });
}
