/**
 * Records a human review of an evaluation; its owner sees it, and the judge
 * weighs it beside the peer assessments if the evaluation is still PENDING.
 *   npm run eval:review -- --eval <evalId> --reviewer-id <id> --reviewer-name <name> \
 *     --score <0-100> --decision <accept|revise|reject> --critique <text>
 * Uses DATABASE_URL, else the project's embedded PostgreSQL (.data/postgres).
 */
import { createDb } from "../api/db/client";
import { runMigrations } from "../api/db/migrate";
import { describeReview, parseReviewArgs, recordHumanReview, UsageError } from "../api/eval/operator";
import { resolveDatabase } from "../ops/postgres";

async function main(): Promise<number> {
  let command;
  try {
    command = parseReviewArgs(process.argv.slice(2));
  } catch (error) {
    console.error((error as Error).message);
    return 2;
  }
  const database = await resolveDatabase();
  const store = createDb(database.url, { applicationName: "eval-review" });
  try {
    await runMigrations(database.url);
    console.log(describeReview(await recordHumanReview(store.db, command), command.evalId));
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
