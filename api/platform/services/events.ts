/**
 * The protocol event stream (GET /api/v1/events) over the indexer's event log, independent of
 * the HTTP framework: a session writes messages through `write` until `signal` aborts.
 *
 * Order and ids: events go out in chain order (blockNumber, logIndex); an id is
 * `${blockNumber}-${logIndex}-${16 hex digits of the block hash}`, so ids are stable and a
 * re-mined event after a reorg has another id than the one it replaces.
 *
 * Resume: the client names its last event (Last-Event-ID, or `lastEventId`):
 * - `0`: from the first event;
 * - an id the log still holds: strictly after it (no gap, no duplicate);
 * - an id the log no longer holds (its block was reorged while the client was away): one
 *   `retraction` naming it and `from` = the last matching event at least the finality depth
 *   (30 blocks) before it, or `0`: every event the client holds after `from` is retracted, and the
 *   stream goes on after `from`;
 * - none: from now on.
 * While connected, the session remembers the ids it sent within the finality depth; when a poll
 * finds some of them gone (Ponder removes the rows of reorged blocks), it sends one `retraction`
 * per removed id, newest last, and then the events that replaced them. A retraction carries, as
 * its `id:`, the last event still valid (what a reconnecting client should resume from).
 */
import type { Logger } from "pino";
import {
  comparePositions,
  datanetTopic,
  type EventPosition,
  parseEventLogId,
  podTopic,
  type Topic,
  walletTopic,
} from "../../../src/lib/event-log";
import type { OffchainDb } from "../../db/client";
import { FINALITY_DEPTH } from "../../reorgs/reconciler";
import {
  eventExists,
  type EventRow,
  eventsAfter,
  existingEventIds,
  indexedBlockNumber,
  lastEventsBetween,
  lastEventUpTo,
} from "../repositories/events";
import type { Executor } from "../repositories/subnets";

/** Events read per query (a replay goes on at once while full batches come back). */
export const EVENT_BATCH = 200;
/** Sent ids remembered per stream for retractions, at most (older ones are final on any real chain). */
const MAX_REMEMBERED = 10_000;

export interface EventFilter {
  datanet?: bigint;
  pod?: bigint;
  wallet?: `0x${string}`;
}

/** The filter as log topics, the most selective first (the query walks the first one's index). */
export function topicsOf(filter: EventFilter): Topic[] {
  const topics: Topic[] = [];
  if (filter.pod !== undefined) topics.push(podTopic(filter.pod));
  if (filter.wallet !== undefined) topics.push(walletTopic(filter.wallet));
  if (filter.datanet !== undefined) topics.push(datanetTopic(filter.datanet));
  return topics;
}

/** Where a client resumes: from the start, after a named event, or from now (no id given). */
export type Resume = { kind: "start" } | { kind: "after"; id: string; position: EventPosition } | { kind: "now" };

/** Last-Event-ID (or the `lastEventId` query) as a resume point; undefined when malformed. */
export function parseResume(value: string | undefined): Resume | undefined {
  if (value === undefined || value === "") return { kind: "now" };
  if (value === "0") return { kind: "start" };
  const position = parseEventLogId(value);
  return position ? { kind: "after", id: value, position } : undefined;
}

export type StreamMessage = { event: string; id?: string; data: string } | { comment: string };

export interface StreamSignal {
  readonly aborted: boolean;
  /** Resolves after `ms`, or at once when the stream is aborted. */
  wait(ms: number): Promise<void>;
}

export interface EventStreamOptions {
  db: OffchainDb;
  viewsSchema: string;
  topics: Topic[];
  resume: Resume;
  pollIntervalMs: number;
  keepAliveMs: number;
  write(message: StreamMessage): Promise<void>;
  signal: StreamSignal;
  logger: Pick<Logger, "warn">;
  batchSize?: number;
}

const START: EventPosition = { blockNumber: -1n, logIndex: 0 };

interface Mark {
  id: string;
  position: EventPosition;
}

/** An event as its `data:` line. */
export function presentEvent(row: EventRow) {
  return {
    id: row.id,
    kind: row.kind,
    blockNumber: Number(row.blockNumber),
    blockHash: row.blockHash,
    logIndex: row.logIndex,
    txHash: row.txHash,
    timestamp: new Date(Number(row.timestamp) * 1000).toISOString(),
    data: row.data,
  };
}

interface StreamState {
  /** The stream's position: the last event sent, or known to the client. */
  cursor: Mark;
  /** The newest event at least the finality depth deep (or the origin): nothing up to it can change. */
  floor: Mark;
  /** The events after the floor, in stream order: those sent (or the client's, on resume) and those it skipped. */
  recent: Mark[];
  /** Ids among `recent` that the client never got (events before a stream started "now"). */
  undelivered: Set<string>;
  /** The resume point, until it is decided. */
  pending: Resume | undefined;
}

const mark = (row: EventRow): Mark => ({
  id: row.id,
  position: { blockNumber: row.blockNumber, logIndex: row.logIndex },
});
const ORIGIN: Mark = { id: "0", position: START };
/** Above every log index (the column is a PostgreSQL integer). */
const MAX_LOG_INDEX = 2_147_483_647;

/** The events of the last blocks up to `mark` (at most MAX_REMEMBERED) and the final event before them. */
async function window(tx: Executor, topics: Topic[], head: bigint, upTo: EventPosition) {
  const bound = head - FINALITY_DEPTH;
  const after = { blockNumber: bound, logIndex: MAX_LOG_INDEX };
  const until = upTo.blockNumber;
  const rows = (await lastEventsBetween(tx, topics, after, until, MAX_REMEMBERED + 1)).filter(
    (row) => comparePositions(row, upTo) <= 0,
  );
  const floorRow = bound >= 0n ? await lastEventUpTo(tx, topics, bound) : undefined;
  let floor = floorRow ? mark(floorRow) : ORIGIN;
  const marks = rows.map(mark);
  if (marks.length > MAX_REMEMBERED) floor = marks.shift()!;
  return { floor, marks };
}

/**
 * One poll, in one snapshot: decides a pending resume point, retracts sent events the log lost,
 * reads the next events. Returns the messages and the next state; the caller's state is untouched
 * (a failed poll changes nothing).
 */
async function poll(
  options: EventStreamOptions,
  state: StreamState,
  batchSize: number,
): Promise<{ messages: StreamMessage[]; state: StreamState; full: boolean }> {
  const { db, viewsSchema, topics } = options;
  return db.transaction(
    async (tx) => {
      const messages: StreamMessage[] = [];
      const next: StreamState = { ...state, recent: [...state.recent], undelivered: new Set(state.undelivered) };
      const head = await indexedBlockNumber(tx, viewsSchema);
      if (head === undefined) return { messages, state, full: false };

      const pending = next.pending;
      if (pending) {
        if (pending.kind === "start") {
          next.cursor = next.floor = ORIGIN;
        } else if (pending.kind === "now") {
          // the recent events are remembered (not sent): a reorg of them must not cost a gap
          const last = await lastEventUpTo(tx, topics, head);
          const { floor, marks } = await window(tx, topics, head, last ?? START);
          next.floor = floor;
          next.recent = marks;
          next.undelivered = new Set(marks.map((m) => m.id));
          next.cursor = marks.at(-1) ?? floor;
        } else if (await eventExists(tx, pending.id)) {
          // the client holds the events up to its id: they are retracted like sent ones
          const { floor, marks } = await window(tx, topics, head, pending.position);
          const own = { id: pending.id, position: pending.position };
          // a final id is its own floor; else the client's recent events are remembered as sent
          next.floor = marks.length === 0 ? own : floor;
          next.recent = marks;
          next.cursor = own;
        } else if (pending.position.blockNumber > head) {
          // this replica's indexer has not reached the client's block yet: decide later
          return { messages, state, full: false };
        } else {
          // the client's last event left the chain while it was away: everything it got after what
          // is final for sure is retracted, and the stream goes on from there
          const bound = pending.position.blockNumber - FINALITY_DEPTH;
          const from = bound >= 0n ? await lastEventUpTo(tx, topics, bound) : undefined;
          next.cursor = next.floor = from ? mark(from) : ORIGIN;
          messages.push({
            event: "retraction",
            id: next.cursor.id,
            data: JSON.stringify({ id: pending.id, reason: "reorg", from: next.cursor.id }),
          });
        }
        next.pending = undefined;
      }

      if (next.recent.length > 0) {
        const existing = await existingEventIds(
          tx,
          next.recent.map((m) => m.id),
        );
        const firstGone = next.recent.findIndex((m) => !existing.has(m.id));
        if (firstGone >= 0) {
          // a reorg removes whole blocks from the fork on: every event after the first lost one goes too
          const gone = next.recent.slice(firstGone);
          next.recent = next.recent.slice(0, firstGone);
          next.cursor = next.recent.at(-1) ?? next.floor;
          for (const m of gone) {
            if (next.undelivered.has(m.id)) continue;
            messages.push({
              event: "retraction",
              id: next.cursor.id,
              data: JSON.stringify({ id: m.id, reason: "reorg" }),
            });
          }
        }
      }

      const rows = await eventsAfter(tx, topics, next.cursor.position, head, batchSize);
      for (const row of rows) {
        // an event the client never got, back after a reorg undid and redid its block: still not sent
        if (!next.undelivered.has(row.id)) {
          messages.push({ event: row.kind, id: row.id, data: JSON.stringify(presentEvent(row)) });
        }
        next.cursor = mark(row);
        next.recent.push(next.cursor);
      }

      // what is final can no longer be retracted: forget it
      const finalUpTo = head - FINALITY_DEPTH;
      let keepFrom = next.recent.findIndex((m) => m.position.blockNumber > finalUpTo);
      if (keepFrom < 0) keepFrom = next.recent.length;
      keepFrom = Math.max(keepFrom, next.recent.length - MAX_REMEMBERED);
      if (keepFrom > 0) {
        next.floor = next.recent[keepFrom - 1]!;
        for (const m of next.recent.slice(0, keepFrom)) next.undelivered.delete(m.id);
        next.recent = next.recent.slice(keepFrom);
      }
      return { messages, state: next, full: rows.length === batchSize };
    },
    { isolationLevel: "repeatable read", accessMode: "read only" },
  );
}

/** Runs one stream until the signal aborts. */
export async function runEventStream(options: EventStreamOptions): Promise<void> {
  const { write, signal } = options;
  const batchSize = options.batchSize ?? EVENT_BATCH;
  let state: StreamState = {
    cursor: ORIGIN,
    floor: ORIGIN,
    recent: [],
    undelivered: new Set(),
    pending: options.resume,
  };
  let lastWrite = Date.now();
  let failing = false;

  const send = async (message: StreamMessage) => {
    await write(message);
    lastWrite = Date.now();
  };

  await send({ comment: "protocol events" });
  while (!signal.aborted) {
    let messages: StreamMessage[] = [];
    let full = false;
    try {
      const result = await poll(options, state, batchSize);
      ({ messages, state, full } = result);
      failing = false;
    } catch (error) {
      if (!failing) options.logger.warn({ err: error }, "event stream: reading the event log failed; retrying");
      failing = true;
    }
    for (const message of messages) {
      if (signal.aborted) return;
      await send(message);
    }
    if (full) continue;
    if (Date.now() - lastWrite >= options.keepAliveMs) await send({ comment: "keep-alive" });
    const untilKeepAlive = options.keepAliveMs - (Date.now() - lastWrite);
    await signal.wait(Math.max(0, Math.min(options.pollIntervalMs, untilKeepAlive)));
  }
}

/** A cap on the streams open at once in one process. */
export class EventStreamSlots {
  private open = 0;

  constructor(readonly max: number) {}

  /** A release function (idempotent), or undefined when every slot is taken. */
  acquire(): (() => void) | undefined {
    if (this.open >= this.max) return undefined;
    this.open += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.open -= 1;
    };
  }

  get inUse(): number {
    return this.open;
  }
}
