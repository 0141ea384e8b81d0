import { createDb, type OffchainDb } from "../../api/db/client";
import { runMigrations } from "../../api/db/migrate";
import { resolveDatabase } from "../../ops/postgres";
import { exitWithUsage, wantsHelp } from "../../ops/cli";

/**
 * Runs an operator command against the project's database (DATABASE_URL, else the embedded
 * PostgreSQL in .data/postgres, re-used if the service is running): parse the arguments (a
 * throw is a usage error, exit 2), migrate, run, print; an error the command marks as expected
 * (`isUsageError`) exits 1 with its message.
 */
export async function runOperatorCommand<T>(options: {
  name: string;
  usage: string;
  parse: (argv: string[]) => T;
  run: (db: OffchainDb, command: T) => Promise<string>;
  isUsageError: (error: unknown) => boolean;
}): Promise<never> {
  const argv = process.argv.slice(2);
  if (wantsHelp(argv)) exitWithUsage(options.usage);
  let command: T;
  try {
    command = options.parse(argv);
  } catch (error) {
    console.error((error as Error).message);
    process.exit(2);
  }
  const database = await resolveDatabase();
  const store = createDb(database.url, { applicationName: options.name });
  let code = 0;
  try {
    await runMigrations(database.url);
    console.log(await options.run(store.db, command));
  } catch (error) {
    if (!options.isUsageError(error)) throw error;
    console.error((error as Error).message);
    code = 1;
  } finally {
    await store.pool.end().catch(() => undefined);
    await database.stop();
  }
  process.exit(code);
}
