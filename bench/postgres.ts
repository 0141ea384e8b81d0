/** The PostgreSQL server of a bench run: DATABASE_URL (a server URL) when set, else an embedded one started here. */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { prepareDirectoryForPostgres, startEmbeddedPostgres } from "../ops/postgres";

export async function benchPostgres(): Promise<{ serverUrl: string; stop: () => Promise<unknown> }> {
  const url = process.env.DATABASE_URL;
  if (url) return { serverUrl: url, stop: async () => undefined };
  const root = mkdtempSync(path.join(os.tmpdir(), "bench-pg-"));
  prepareDirectoryForPostgres(root);
  const server = await startEmbeddedPostgres({ dataDir: path.join(root, "data"), database: "postgres" });
  return {
    serverUrl: server.url,
    stop: async () => {
      await server.stop();
      rmSync(root, { recursive: true, force: true });
    },
  };
}
