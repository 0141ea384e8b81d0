import { fileURLToPath } from "node:url";
import { drizzle } from "drizzle-orm/node-postgres";
import { migrate } from "drizzle-orm/node-postgres/migrator";
import pg from "pg";

export const MIGRATIONS_FOLDER = fileURLToPath(new URL("./migrations", import.meta.url));
export const MIGRATIONS_SCHEMA = "offchain";
const MIGRATION_LOCK_NAME = "datamarket:offchain-migrations";

/**
 * Applies pending off-chain migrations. Replicas starting together serialise
 * on a session-level advisory lock held on the migrating connection, so exactly
 * one applies each migration and the others find nothing left to do.
 */
export async function runMigrations(databaseUrl: string, migrationsFolder = MIGRATIONS_FOLDER): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl, application_name: "offchain-migrations" });
  // Connection-level failures also reject the pending query; this only keeps them from crashing the process.
  client.on("error", () => undefined);
  await client.connect();
  try {
    await client.query("SELECT pg_advisory_lock(hashtext($1))", [MIGRATION_LOCK_NAME]);
    try {
      await migrate(drizzle({ client }), { migrationsFolder, migrationsSchema: MIGRATIONS_SCHEMA });
    } finally {
      await client.query("SELECT pg_advisory_unlock(hashtext($1))", [MIGRATION_LOCK_NAME]).catch(() => undefined);
    }
  } finally {
    await client.end().catch(() => undefined);
  }
}
