// The event log the Platform API streams (GET /api/v1/events): one row per protocol event, with
// its subjects for the stream's filters. (Loaded by Ponder like every file under src/; it
// registers no handlers: the contracts' handlers call `recordEvent`.)
import type { Context } from "ponder:registry";
import { eventLog, eventLogTopic } from "ponder:schema";
import { type EventKind, eventLogId, eventLogTopicId, type Topic, datanetTopic, podTopic, walletTopic } from "./lib/event-log";

type LogEvent = {
  block: { number: bigint; hash: `0x${string}`; timestamp: bigint };
  log: { logIndex: number };
  transaction: { hash: `0x${string}` };
};

/** JSON of event arguments: integers as decimal strings, hex (addresses, hashes) lower case. */
export function jsonArgs(args: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(args)) {
    if (typeof value === "bigint") out[key] = value.toString();
    else if (typeof value === "string" && value.startsWith("0x")) out[key] = value.toLowerCase();
    else out[key] = value;
  }
  return out;
}

export interface EventSubjects {
  datanets?: bigint[];
  pods?: bigint[];
  wallets?: string[];
}

/**
 * Writes the event and its subjects (datanets, pods, wallets; duplicates dropped).
 *
 * Rows keyed by one log (this event's id, `eventId(txHash, logIndex)` in the handlers) are written
 * with a plain `insert`, not `onConflictDoNothing`: Ponder processes each log once, so the key is
 * new, and a plain insert is not looked up first. Once Ponder's row cache passes its cap
 * (PONDER_CACHE_BYTES) and evicts a table, every `onConflictDoNothing` is a read of that row from
 * PostgreSQL (per batch or per row); a duplicate would now stop the indexer at the batch's flush
 * with a primary-key error instead of being dropped silently (bench/README.md, run 6).
 */
export async function recordEvent(
  context: Pick<Context, "db">,
  event: LogEvent,
  kind: EventKind,
  data: Record<string, unknown>,
  subjects: EventSubjects,
): Promise<void> {
  const id = eventLogId(event.block.number, event.log.logIndex, event.block.hash);
  const position = { blockNumber: event.block.number, logIndex: event.log.logIndex };
  await context.db
    .insert(eventLog)
    .values({
      id,
      ...position,
      blockHash: event.block.hash,
      txHash: event.transaction.hash,
      timestamp: event.block.timestamp,
      kind,
      data,
    });
  const topics = new Set<Topic>([
    ...(subjects.datanets ?? []).map(datanetTopic),
    ...(subjects.pods ?? []).map(podTopic),
    ...(subjects.wallets ?? []).map(walletTopic),
  ]);
  if (topics.size === 0) return;
  await context.db
    .insert(eventLogTopic)
    .values([...topics].map((topic) => ({ id: eventLogTopicId(id, topic), eventId: id, topic, ...position })));
}
