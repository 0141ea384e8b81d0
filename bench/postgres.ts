/** The PostgreSQL server of a bench run: DATABASE_URL (a server URL) when set, else an embedded one started here. */
import { startThrowawayPostgres } from "../ops/postgres";

export async function benchPostgres(): Promise<{ serverUrl: string; stop: () => Promise<unknown> }> {
  const url = process.env.DATABASE_URL;
  if (url) return { serverUrl: url, stop: async () => undefined };
  const server = await startThrowawayPostgres({ database: "postgres", prefix: "bench-pg-" });
  return { serverUrl: server.url, stop: server.stop };
}
