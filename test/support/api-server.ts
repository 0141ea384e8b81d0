/**
 * The three surfaces as `npm start` serves them (api/server.ts) on a fresh database, without a
 * chain or an indexer (PONDER_URL points nowhere) and without the settlement worker.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { loadConfig } from "../../api/config";
import { startApiServer, type ApiServer } from "../../api/server";
import { useFreshDatabase } from "./database";

export interface ChainlessApi {
  api: ApiServer;
  /** Stops the server, drops its database and removes the evaluation store's directory. */
  stop(): Promise<void>;
}

/** The server on `databaseUrl` with free ports, no logs and no Ponder to ask (PONDER_URL points nowhere). */
export function startTestApi(databaseUrl: string, env: Record<string, string> = {}): Promise<ApiServer> {
  return startApiServer(
    loadConfig({
      DATABASE_URL: databaseUrl,
      LOG_LEVEL: "silent",
      PLATFORM_PORT: "0",
      CHAT_PORT: "0",
      EVAL_PORT: "0",
      PONDER_URL: "http://127.0.0.1:9",
      ...env,
    }),
  );
}

export async function startChainlessApi(name: string): Promise<ChainlessApi> {
  const database = await useFreshDatabase();
  const storageDir = fs.mkdtempSync(path.join(os.tmpdir(), `${name}-`));
  process.env.EVAL_WORKER_ENABLED = "false";
  process.env.EVAL_STORAGE_DIR = storageDir;
  const removeAll = async () => {
    await database.drop();
    fs.rmSync(storageDir, { recursive: true, force: true });
  };
  let api: ApiServer;
  try {
    api = await startTestApi(database.url);
  } catch (error) {
    await removeAll();
    throw error;
  }
  return {
    api,
    async stop() {
      await api.close();
      await removeAll();
    },
  };
}
