/**
 * SQL of the event stream's shared poller (services/event-feed.ts): one statement per interval
 * for every open stream of the process. Each is a single statement, so it reads one snapshot
 * without a transaction: the indexed head, which remembered events still exist (reorgs), the next
 * events of the whole log after the poller's cursor, and the subjects (topics) of those events
 * that open streams filter on, through `event_log_topic_order_idx` (one index range per topic).
 */
import { sql } from "drizzle-orm";
import type { EventPosition } from "../../../src/lib/event-log";
import { chain } from "../../db/chain";
import { isUndefinedTable } from "../../db/errors";
import { type EventRow, type RawEventRow, toEventRow } from "./events";
import type { Executor } from "./subnets";

const parseJson = <T>(value: unknown): T => (typeof value === "string" ? (JSON.parse(value) as T) : (value as T));

/** Ponder's checkpoint as the indexed block number (timestamp 10 digits + chain id 16 + block 16 + ...). */
const head = (viewsSchema: string) =>
  sql`SELECT max(substring(latest_checkpoint from 27 for 16))::numeric AS block FROM ${sql.identifier(viewsSchema)}."_ponder_checkpoint"`;

export interface FeedStart {
  head: bigint;
  /** The last event of each block after `head - depth` (up to `head`), in order. */
  blocks: Array<{ id: string; blockNumber: bigint; logIndex: number }>;
  /** The last event in blocks up to `head - depth`. */
  floor: { id: string; blockNumber: bigint; logIndex: number } | undefined;
}

/** Where the poller starts (now): the head, the last event of each recent block, the last final event. */
export async function readFeedStart(db: Executor, viewsSchema: string, depth: bigint): Promise<FeedStart | undefined> {
  let result;
  try {
    result = await db.execute<{ head: string | null; blocks: unknown; floor: unknown }>(sql`
      WITH head AS (${head(viewsSchema)})
      SELECT (SELECT block::text FROM head) AS head,
        (SELECT coalesce(json_agg(json_build_array(b.id, b.block_number::text, b.log_index) ORDER BY b.block_number), '[]')
           FROM (SELECT DISTINCT ON (e.block_number) e.id, e.block_number, e.log_index FROM ${chain.eventLog} e
                 WHERE e.block_number > (SELECT block FROM head) - ${depth}::numeric AND e.block_number <= (SELECT block FROM head)
                 ORDER BY e.block_number, e.log_index DESC) b) AS blocks,
        (SELECT json_build_array(f.id, f.block_number::text, f.log_index)
           FROM (SELECT e.id, e.block_number, e.log_index FROM ${chain.eventLog} e
                 WHERE e.block_number <= (SELECT block FROM head) - ${depth}::numeric
                 ORDER BY e.block_number DESC, e.log_index DESC LIMIT 1) f) AS floor`);
  } catch (error) {
    if (isUndefinedTable(error)) return undefined;
    throw error;
  }
  const row = result.rows[0];
  if (!row?.head) return undefined;
  const mark = ([id, block, logIndex]: [string, string, number]) => ({ id, blockNumber: BigInt(block), logIndex });
  const floor = parseJson<[string, string, number] | null>(row.floor);
  return {
    head: BigInt(row.head),
    blocks: parseJson<Array<[string, string, number]>>(row.blocks).map(mark),
    floor: floor ? mark(floor) : undefined,
  };
}

export interface FeedRead {
  head: bigint;
  /** Which of `checkIds` the log still holds. */
  existing: Set<string>;
  /** The next events of the whole log after `after`, up to the head, in stream order. */
  events: EventRow[];
  /** Per event id, its topics among `topics`. */
  topics: Map<string, Set<string>>;
}

/**
 * One poll of the shared feed, in one statement: the head, which of `checkIds` still exist, up to
 * `limit` events strictly after `after` in blocks up to the head, and which of `topics` they have.
 * Undefined before the indexer's views and checkpoint exist.
 */
export async function readFeed(
  db: Executor,
  viewsSchema: string,
  input: { after: EventPosition; checkIds: string[]; topics: string[]; limit: number },
): Promise<FeedRead | undefined> {
  const { after, checkIds, topics, limit } = input;
  const afterSql = sql`(${after.blockNumber}::numeric, ${after.logIndex}::integer)`;
  let result;
  try {
    result = await db.execute<{ head: string | null; existing: string[] | null; events: unknown; topics: string[] | null }>(sql`
      WITH head AS (${head(viewsSchema)}),
      batch AS (
        SELECT e.id, e.block_number, e.log_index, e.block_hash, e.tx_hash, e.timestamp, e.kind, e.data FROM ${chain.eventLog} e
        WHERE (e.block_number, e.log_index) > ${afterSql} AND e.block_number <= (SELECT block FROM head)
        ORDER BY e.block_number, e.log_index LIMIT ${limit}
      )
      SELECT (SELECT block::text FROM head) AS head,
        ARRAY(SELECT e.id FROM ${chain.eventLog} e WHERE e.id = ANY(${sql.param(checkIds)}::text[])) AS existing,
        (SELECT coalesce(json_agg(json_build_object(
            'id', b.id, 'block_number', b.block_number::text, 'log_index', b.log_index, 'block_hash', b.block_hash,
            'tx_hash', b.tx_hash, 'timestamp', b.timestamp::text, 'kind', b.kind, 'data', b.data)
          ORDER BY b.block_number, b.log_index), '[]') FROM batch b) AS events,
        ARRAY(SELECT t.id FROM ${chain.eventLogTopic} t
          WHERE t.topic = ANY(${sql.param(topics)}::text[]) AND (t.block_number, t.log_index) > ${afterSql}
            AND t.block_number <= (SELECT max(b.block_number) FROM batch b)
            AND t.event_id IN (SELECT b.id FROM batch b)) AS topics`);
  } catch (error) {
    if (isUndefinedTable(error)) return undefined;
    throw error;
  }
  const row = result.rows[0];
  if (!row?.head) return undefined;
  const byEvent = new Map<string, Set<string>>();
  for (const topicId of row.topics ?? []) {
    // a topic row's id is `${eventId}|${topic}` (event ids hold no "|")
    const cut = topicId.indexOf("|");
    const eventId = topicId.slice(0, cut);
    let set = byEvent.get(eventId);
    if (!set) byEvent.set(eventId, (set = new Set()));
    set.add(topicId.slice(cut + 1));
  }
  return {
    head: BigInt(row.head),
    existing: new Set(row.existing ?? []),
    events: parseJson<RawEventRow[]>(row.events).map(toEventRow),
    topics: byEvent,
  };
}
