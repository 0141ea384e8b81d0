/**
 * Records a human review of an evaluation; its owner sees it, and the judge
 * weighs it beside the peer assessments if the evaluation is still PENDING.
 *   npm run eval:review -- --eval <evalId> --reviewer-id <id> --reviewer-name <name> \
 *     --score <0-100> --decision <accept|revise|reject> --critique <text>
 * Uses DATABASE_URL, else the project's embedded PostgreSQL (.data/postgres).
 */
import { describeReview, parseReviewArgs, recordHumanReview, REVIEW_USAGE, UsageError } from "../api/eval/operator";
import { runOperatorCommand } from "./lib/operator-command";

await runOperatorCommand({
  name: "eval-review",
  usage: REVIEW_USAGE,
  parse: parseReviewArgs,
  run: async (db, command) => describeReview(await recordHumanReview(db, command), command.evalId),
  isUsageError: (error) => error instanceof UsageError,
});
