/**
 * The read-path bench's reference servers (measure.ts: the bare route, the stack, the front, the
 * kept answer…) kept running on a benchmark database, for a profiler to attach to while a load
 * generator hits one of them. Prints this process's id and each reference's URL; Ctrl-C stops
 * them and drops the database. The profiling steps: bench/README.md, "Profiling with Linux perf".
 *
 *   node --perf-basic-prof --import tsx bench/read-path/serve-references.ts
 *
 * Uses DATABASE_URL (a server URL) when set, else an embedded PostgreSQL.
 */
import os from "node:os";
import { runMigrations } from "../../api/db/migrate";
import { createDatabase, dropDatabase, urlWithDatabase } from "../../ops/postgres";
import { benchPostgres } from "../postgres";
import { benchTempDir } from "../temp-dir";
import { benchApiConfig } from "./api";
import { startReferenceServers } from "./measure";
import { ROUTE_PATHS } from "./routes";

const { serverUrl, stop: stopPostgres } = await benchPostgres();
const dbName = `bench_references_${Date.now()}`;
await createDatabase(serverUrl, dbName);

async function start() {
  const databaseUrl = urlWithDatabase(serverUrl, dbName);
  await runMigrations(databaseUrl);
  return startReferenceServers(benchApiConfig(databaseUrl, benchTempDir("bench-references-")), databaseUrl);
}

const stopAll = async (code: number) => {
  await dropDatabase(serverUrl, dbName);
  await stopPostgres();
  process.exit(code);
};

const references = await start().catch(async (error: unknown) => {
  console.error(error);
  return stopAll(1);
});

console.log(`process ${process.pid} on ${os.cpus().length} × ${os.cpus()[0]?.model ?? "cpu"}`);
console.log(`bare: ${references.bareUrl}/json`);
for (const route of ROUTE_PATHS) {
  if (!route.stack) continue;
  console.log(
    `${route.name}: ${references.stackUrls[route.stack]}${route.path({ pods: 0, votes: 0, datanets: 0, users: 0 })}`,
  );
}

process.once("SIGINT", async () => {
  await references.close();
  await stopAll(0);
});
