/**
 * Lists the off-chain records a reorg touched (offchain.reorged_records, newest first): undone
 * (their transaction was dropped, reverted, or mined again with other facts) or reconfirmed (the
 * identical transaction mined again in another block with the same facts).
 *   npm run reorgs [-- --limit 100] [-- --json]
 * Uses DATABASE_URL, else the project's embedded PostgreSQL (.data/postgres).
 */
import { listReorgedRecords } from "../api/reorgs/reconciler";
import { parseArgs } from "node:util";
import { runOperatorCommand } from "./lib/operator-command";

const USAGE = `Usage: npm run reorgs [-- --limit <n>] [-- --json]
  Lists the off-chain records a reorg undid or reconfirmed (newest first).`;

await runOperatorCommand({
  name: "reorgs",
  usage: USAGE,
  parse: (argv) => {
    let values;
    try {
      ({ values } = parseArgs({
        args: argv,
        options: { limit: { type: "string", default: "100" }, json: { type: "boolean", default: false } },
        strict: true,
      }));
    } catch (error) {
      throw new Error(`${(error as Error).message}\n${USAGE}`);
    }
    const limit = Number(values.limit);
    if (!Number.isInteger(limit) || limit < 1 || limit > 10_000)
      throw new Error(`--limit: a whole number from 1 to 10000\n${USAGE}`);
    return { limit, json: values.json ?? false };
  },
  run: async (db, { limit, json }) => {
    const rows = await listReorgedRecords(db, limit);
    if (json) return JSON.stringify(rows, (_, v) => (typeof v === "bigint" ? v.toString() : v), 2);
    if (rows.length === 0) return "No record was undone or reconfirmed by a reorg.";
    return rows
      .map((r) => {
        const moved = r.outcome === "reconfirmed" ? ` -> block ${r.newBlockNumber}` : "";
        return `${r.undoneAt.toISOString()}  ${r.outcome.padEnd(11)} ${r.kind.padEnd(18)} ${r.recordId}  tx ${r.txHash} (${r.reason}, block ${r.blockNumber ?? "?"}${moved})`;
      })
      .join("\n");
  },
  isUsageError: () => false,
});
