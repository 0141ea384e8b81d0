/**
 * SQL of the event stream over the indexer's event log (ponder.schema.ts `eventLog`,
 * `eventLogTopic`). Every read walks an index in stream order: `event_log_order_idx`
 * (blockNumber, logIndex) without a filter, `event_log_topic_order_idx` (topic, blockNumber,
 * logIndex) for the first filter; further filters are primary-key probes of the topic table.
 */
import { sql, type SQL } from "drizzle-orm";
import type { EventPosition, Topic } from "../../../src/lib/event-log";
import { chain } from "../../db/chain";
import type { Executor } from "./subnets";

export interface EventRow {
  id: string;
  blockNumber: bigint;
  logIndex: number;
  blockHash: string;
  txHash: string;
  timestamp: bigint;
  kind: string;
  data: Record<string, unknown>;
}

/** An event_log row as raw SQL returns it (snake case, numerics as text, data as JSON or its text). */
export type RawEventRow = {
  id: string;
  block_number: string;
  log_index: number;
  block_hash: string;
  tx_hash: string;
  timestamp: string;
  kind: string;
  data: Record<string, unknown> | string;
};

export const toEventRow = (row: RawEventRow): EventRow => ({
  id: row.id,
  blockNumber: BigInt(row.block_number),
  logIndex: Number(row.log_index),
  blockHash: row.block_hash,
  txHash: row.tx_hash,
  timestamp: BigInt(row.timestamp),
  kind: row.kind,
  data: typeof row.data === "string" ? (JSON.parse(row.data) as Record<string, unknown>) : row.data,
});

/**
 * The block the indexer has committed up to (Ponder's checkpoint in the views schema, written in
 * the transaction of the block's rows); undefined before it exists. Safe inside a transaction.
 */
export async function indexedBlockNumber(db: Executor, viewsSchema: string): Promise<bigint | undefined> {
  const table = `"${viewsSchema.replaceAll('"', '""')}"."_ponder_checkpoint"`;
  const exists = await db.execute<{ ok: boolean }>(sql`SELECT to_regclass(${table}::text) IS NOT NULL AS ok`);
  if (exists.rows[0]?.ok !== true) return undefined;
  // checkpoint = timestamp (10 digits) + chain id (16) + block number (16) + ...
  const result = await db.execute<{ block: string | null }>(
    sql`SELECT max(substring(latest_checkpoint from 27 for 16))::numeric::text AS block FROM ${sql.identifier(viewsSchema)}."_ponder_checkpoint"`,
  );
  const block = result.rows[0]?.block;
  return block ? BigInt(block) : undefined;
}

/**
 * The log's version: the indexed head and the newest event's id (an id names its block's hash).
 * An event indexed, removed or replaced by a reorg, or a new head, changes it; undefined before
 * the indexer's checkpoint and views exist.
 */
export async function logVersion(db: Executor, viewsSchema: string): Promise<string | undefined> {
  const head = await indexedBlockNumber(db, viewsSchema);
  if (head === undefined) return undefined;
  const result = await db.execute<{ id: string }>(
    sql`SELECT e.id FROM ${chain.eventLog} e ORDER BY e.block_number DESC, e.log_index DESC LIMIT 1`,
  );
  return `${head}/${result.rows[0]?.id ?? ""}`;
}

/** Which of `ids` the log holds now (the others were removed with their reorged block). */
export async function existingEventIds(db: Executor, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const result = await db.execute<{ id: string }>(
    sql`SELECT e.id FROM ${chain.eventLog} e WHERE e.id = ANY(${sql.param(ids)}::text[])`,
  );
  return new Set(result.rows.map((row) => row.id));
}

/**
 * Up to `limit` events matching every topic (all events without topics), strictly after `after`
 * (default: from the first event) in blocks up to `until`, in stream order: the first `limit` of
 * them, or the last with `take: "last"` (the same index walked backwards).
 */
export async function eventsBetween(
  db: Executor,
  topics: Topic[],
  {
    after = { blockNumber: -1n, logIndex: 0 },
    until,
    limit,
    take = "first",
  }: { after?: EventPosition; until: bigint; limit: number; take?: "first" | "last" },
): Promise<EventRow[]> {
  const direction = take === "first" ? sql`ASC` : sql`DESC`;
  const [first, ...rest] = topics;
  const columns = sql`e.id, e.block_number::text, e.log_index, e.block_hash, e.tx_hash, e.timestamp::text, e.kind, e.data`;
  let query: SQL;
  if (first === undefined) {
    query = sql`SELECT ${columns} FROM ${chain.eventLog} e
      WHERE (e.block_number, e.log_index) > (${after.blockNumber}::numeric, ${after.logIndex}::integer) AND e.block_number <= ${until}::numeric
      ORDER BY e.block_number ${direction}, e.log_index ${direction} LIMIT ${limit}`;
  } else {
    const others = rest.map(
      (topic) => sql` AND EXISTS (SELECT 1 FROM ${chain.eventLogTopic} o WHERE o.id = e.id || ${`|${topic}`})`,
    );
    query = sql`SELECT ${columns} FROM ${chain.eventLogTopic} t JOIN ${chain.eventLog} e ON e.id = t.event_id
      WHERE t.topic = ${first} AND (t.block_number, t.log_index) > (${after.blockNumber}::numeric, ${after.logIndex}::integer)
        AND t.block_number <= ${until}::numeric${sql.join(others, sql``)}
      ORDER BY t.block_number ${direction}, t.log_index ${direction} LIMIT ${limit}`;
  }
  const rows = (await db.execute<RawEventRow>(query)).rows.map(toEventRow);
  return take === "first" ? rows : rows.reverse();
}

/** Whether the log holds the event `id`. */
export async function eventExists(db: Executor, id: string): Promise<boolean> {
  return (await existingEventIds(db, [id])).has(id);
}
