/**
 * Issues (or revokes) an Evaluation API key.
 *   npm run eval:key -- --account <name> [--label <label>]
 *   npm run eval:key -- --revoke <key id>
 * Uses DATABASE_URL, else the project's embedded PostgreSQL (.data/postgres).
 */
import { createDb } from "../api/db/client";
import { runMigrations } from "../api/db/migrate";
import { parseKeyArgs, runKeyCommand, UsageError } from "../api/eval/operator";
import { resolveDatabase } from "../ops/postgres";

async function main(): Promise<number> {
  let command;
  try {
    command = parseKeyArgs(process.argv.slice(2));
  } catch (error) {
    console.error((error as Error).message);
    return 2;
  }
  const database = await resolveDatabase();
  const store = createDb(database.url, { applicationName: "eval-key" });
  try {
    await runMigrations(database.url);
    console.log(await runKeyCommand(store.db, command));
    return 0;
  } catch (error) {
    if (error instanceof UsageError) {
      console.error(error.message);
      return 1;
    }
    throw error;
  } finally {
    await store.pool.end().catch(() => undefined);
    await database.stop();
  }
}

process.exit(await main());
