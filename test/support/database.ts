import { randomBytes } from "node:crypto";
import { afterAll } from "vitest";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import {
  createDatabase,
  dropDatabase,
  prepareDirectoryForPostgres,
  startEmbeddedPostgres,
  urlWithDatabase,
} from "../../ops/postgres";

export interface FreshDatabase {
  url: string;
  drop(): Promise<void>;
}

interface WorkerServer {
  url: string;
  stop(): Promise<void>;
}

// Vitest runs every test file in its own process, so one server per process is
// one per test file; it stops after the file's own hooks (a worker may be ended
// without an 'exit' event) and its temp directory goes with it (or, failing that, at exit).
const WORKER_SERVER_KEY = Symbol.for("datamarket.test.embeddedPostgres");

afterAll(async () => {
  const store = globalThis as { [WORKER_SERVER_KEY]?: Promise<WorkerServer> };
  const server = store[WORKER_SERVER_KEY];
  delete store[WORKER_SERVER_KEY];
  if (server) await (await server).stop();
});

function workerServer(): Promise<WorkerServer> {
  const store = globalThis as { [WORKER_SERVER_KEY]?: Promise<WorkerServer> };
  store[WORKER_SERVER_KEY] ??= startWorkerServer();
  return store[WORKER_SERVER_KEY];
}

async function startWorkerServer(): Promise<WorkerServer> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "datamarket-test-pg-"));
  prepareDirectoryForPostgres(root);
  process.once("exit", () => fs.rmSync(root, { recursive: true, force: true }));
  const server = await startEmbeddedPostgres({ dataDir: path.join(root, "data"), database: "postgres" });
  return {
    url: server.url,
    stop: async () => {
      await server.stop();
      fs.rmSync(root, { recursive: true, force: true });
    },
  };
}

export function uniqueDatabaseName(): string {
  return `t_${Date.now()}_${randomBytes(4).toString("hex")}`;
}

/**
 * A new, empty database for one test file or test: on `DATABASE_URL`'s server
 * when set (CI), else on an embedded server started once per test worker.
 */
export async function useFreshDatabase(): Promise<FreshDatabase> {
  const serverUrl = process.env.DATABASE_URL || (await workerServer()).url;
  const name = uniqueDatabaseName();
  await createDatabase(serverUrl, name);
  return {
    url: urlWithDatabase(serverUrl, name),
    drop: () => dropDatabase(serverUrl, name),
  };
}
