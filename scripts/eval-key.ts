/**
 * Issues (or revokes) an Evaluation API key.
 *   npm run eval:key -- --account <name> [--label <label>]
 *   npm run eval:key -- --revoke <key id>
 * Uses DATABASE_URL, else the project's embedded PostgreSQL (.data/postgres).
 */
import { KEY_USAGE, parseKeyArgs, runKeyCommand, UsageError } from "../api/eval/operator";
import { runOperatorCommand } from "./lib/operator-command";

await runOperatorCommand({
  name: "eval-key",
  usage: KEY_USAGE,
  parse: parseKeyArgs,
  run: runKeyCommand,
  isUsageError: (error) => error instanceof UsageError,
});
