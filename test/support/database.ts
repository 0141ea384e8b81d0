import { randomBytes } from "node:crypto";
import { afterAll } from "vitest";
import {
  createDatabase,
  type DatabaseHandle,
  dropDatabase,
  startThrowawayPostgres,
  urlWithDatabase,
} from "../../ops/postgres";

export interface FreshDatabase {
  url: string;
  drop(): Promise<void>;
}

// Vitest runs every test file in its own process, so one server per process is
// one per test file; it stops after the file's own hooks (a worker may be ended
// without an 'exit' event) and its temp directory goes with it (or, failing that, at exit).
const WORKER_SERVER_KEY = Symbol.for("datamarket.test.embeddedPostgres");

afterAll(async () => {
  const store = globalThis as { [WORKER_SERVER_KEY]?: Promise<DatabaseHandle> };
  const server = store[WORKER_SERVER_KEY];
  delete store[WORKER_SERVER_KEY];
  if (server) await (await server).stop();
});

function workerServer(): Promise<DatabaseHandle> {
  const store = globalThis as { [WORKER_SERVER_KEY]?: Promise<DatabaseHandle> };
  store[WORKER_SERVER_KEY] ??= startThrowawayPostgres({ database: "postgres", prefix: "datamarket-test-pg-" });
  return store[WORKER_SERVER_KEY];
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
