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
 *
 * Cost: a stream first decides its resume point and catches up with its own paged queries (one
 * read-only snapshot per page), up to the cursor of the process's shared poller
 * (services/event-feed.ts); then it joins that poller, which reads the log once per interval for
 * every stream, and applies its own filters and retractions in memory.
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
import { blockKeyOf, EventFeed, type FeedNote, type FeedSubscription, type Mark, ORIGIN, presentEvent } from "./event-feed";
import { eventExists, type EventRow, eventsBetween, existingEventIds, indexedBlockNumber } from "../repositories/events";
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
  /** The process's shared poller; without one, the stream runs a poller of its own (tests). */
  feed?: EventFeed;
}

const START: EventPosition = { blockNumber: -1n, logIndex: 0 };

export { presentEvent };

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
/** Above every log index (the column is a PostgreSQL integer). */
const MAX_LOG_INDEX = 2_147_483_647;

/** The last event matching `topics` in blocks up to `until` (undefined: none). */
async function lastEventUpTo(tx: Executor, topics: Topic[], until: bigint): Promise<EventRow | undefined> {
  return (await eventsBetween(tx, topics, { until, limit: 1, take: "last" }))[0];
}

/** The events of the last blocks up to `mark` (at most MAX_REMEMBERED) and the final event before them. */
async function window(tx: Executor, topics: Topic[], head: bigint, upTo: EventPosition) {
  const bound = head - FINALITY_DEPTH;
  const after = { blockNumber: bound, logIndex: MAX_LOG_INDEX };
  const until = upTo.blockNumber;
  const rows = (await eventsBetween(tx, topics, { after, until, limit: MAX_REMEMBERED + 1, take: "last" })).filter(
    (row) => comparePositions(row, upTo) <= 0,
  );
  const floorRow = bound >= 0n ? await lastEventUpTo(tx, topics, bound) : undefined;
  let floor = floorRow ? mark(floorRow) : ORIGIN;
  const marks = rows.map(mark);
  if (marks.length > MAX_REMEMBERED) floor = marks.shift()!;
  return { floor, marks };
}

/**
 * One poll of a catching-up stream, in one snapshot: decides a pending resume point, retracts sent
 * events the log lost, reads the next events (up to `bound`, the shared poller's cursor, when
 * given). Returns the messages and the next state; the caller's state is untouched (a failed poll
 * changes nothing). `full`: more events are waiting before `bound`; `settled`: the resume point is
 * decided and the head known (the stream may join the shared poller).
 */
async function poll(
  options: EventStreamOptions,
  state: StreamState,
  batchSize: number,
  bound?: EventPosition,
): Promise<{ messages: StreamMessage[]; state: StreamState; full: boolean; settled: boolean }> {
  const { db, viewsSchema, topics } = options;
  return db.transaction(
    async (tx) => {
      const messages: StreamMessage[] = [];
      const next: StreamState = { ...state, recent: [...state.recent], undelivered: new Set(state.undelivered) };
      const head = await indexedBlockNumber(tx, viewsSchema);
      if (head === undefined) return { messages, state, full: false, settled: false };

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
          return { messages, state, full: false, settled: false };
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

      const read = await eventsBetween(tx, topics, { after: next.cursor.position, until: head, limit: batchSize });
      const rows = bound ? read.filter((row) => comparePositions(row, bound) <= 0) : read;
      for (const row of rows) {
        // an event the client never got, back after a reorg undid and redid its block: still not sent
        if (!next.undelivered.has(row.id)) {
          messages.push({ event: row.kind, id: row.id, data: JSON.stringify(presentEvent(row)) });
        }
        next.cursor = mark(row);
        next.recent.push(next.cursor);
      }

      forgetFinal(next, head);
      const reached = bound !== undefined && rows.length > 0 && comparePositions(rows.at(-1)!, bound) >= 0;
      return { messages, state: next, full: read.length === batchSize && rows.length === read.length && !reached, settled: true };
    },
    { isolationLevel: "repeatable read", accessMode: "read only" },
  );
}

/** What is final can no longer be retracted: forget it (in place). */
function forgetFinal(state: StreamState, head: bigint): void {
  const finalUpTo = head - FINALITY_DEPTH;
  let keepFrom = state.recent.findIndex((m) => m.position.blockNumber > finalUpTo);
  if (keepFrom < 0) keepFrom = state.recent.length;
  keepFrom = Math.max(keepFrom, state.recent.length - MAX_REMEMBERED);
  if (keepFrom > 0) {
    state.floor = state.recent[keepFrom - 1]!;
    for (const m of state.recent.slice(0, keepFrom)) state.undelivered.delete(m.id);
    state.recent = state.recent.slice(keepFrom);
  }
}

/**
 * A note of the shared poller applied to one stream, in memory: retractions of its events in the
 * blocks a reorg removed, then the new events that match its topics.
 */
function applyNote(state: StreamState, note: FeedNote, topics: readonly Topic[]): StreamMessage[] {
  const messages: StreamMessage[] = [];
  const gone = note.gone;
  if (gone && state.recent.length > 0) {
    const firstGone = state.recent.findIndex((m) => gone.has(blockKeyOf(m.id)));
    if (firstGone >= 0) {
      // a reorg removes whole blocks from the fork on: every event after the first lost one goes too
      const lost = state.recent.slice(firstGone);
      state.recent = state.recent.slice(0, firstGone);
      state.cursor = state.recent.at(-1) ?? state.floor;
      for (const m of lost) {
        if (state.undelivered.has(m.id)) continue;
        messages.push({ event: "retraction", id: state.cursor.id, data: JSON.stringify({ id: m.id, reason: "reorg" }) });
      }
    }
  }
  for (const event of note.events) {
    // the stream read up to its cursor by itself (catching up in a snapshot at least as new)
    if (comparePositions(event.mark.position, state.cursor.position) <= 0) continue;
    if (!topics.every((topic) => event.topics.has(topic))) continue;
    if (!state.undelivered.has(event.mark.id)) messages.push({ event: event.row.kind, id: event.mark.id, data: event.data });
    state.cursor = event.mark;
    state.recent.push(event.mark);
  }
  forgetFinal(state, note.head);
  return messages;
}

/** Runs one stream until the signal aborts (or the shared poller closes). */
export async function runEventStream(options: EventStreamOptions): Promise<void> {
  const batchSize = options.batchSize ?? EVENT_BATCH;
  const own = options.feed
    ? undefined
    : new EventFeed({
        db: options.db,
        viewsSchema: options.viewsSchema,
        pollIntervalMs: options.pollIntervalMs,
        logger: options.logger,
        batchSize,
      });
  const feed = (options.feed ?? own)!;
  const subscription = feed.subscribe(options.topics);
  try {
    await stream(options, feed, subscription, batchSize);
  } finally {
    feed.unsubscribe(subscription);
    own?.close();
  }
}

async function stream(options: EventStreamOptions, feed: EventFeed, subscription: FeedSubscription, batchSize: number) {
  const { write, signal, topics } = options;
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
  while (!signal.aborted && !feed.isClosed) {
    if (!subscription.joined) {
      // catching up by itself, up to the shared poller's cursor
      const target = feed.target();
      let messages: StreamMessage[] = [];
      let full = false;
      let settled = false;
      try {
        const result = await poll(options, state, batchSize, target?.cursor.position);
        ({ messages, state, full, settled } = result);
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
      if (settled && target) {
        if (feed.tryJoin(subscription, target.version, state.recent)) continue;
        // the poller moved on meanwhile: catch up to its new cursor at once
        if (feed.target()?.version !== target.version) continue;
      }
    } else {
      for (const note of subscription.take()) {
        if (!subscription.joined) break;
        if (note.topicsVersion < subscription.topicsVersion) {
          // read without this stream's topics (it subscribed during that poll): catch up by itself
          feed.leave(subscription);
          break;
        }
        for (const message of applyNote(state, note, topics)) {
          if (signal.aborted) return;
          await send(message);
        }
      }
      if (subscription.joined && subscription.head !== undefined) forgetFinal(state, subscription.head);
      if (subscription.notes.length > 0 || !subscription.joined) continue;
    }
    if (Date.now() - lastWrite >= options.keepAliveMs) await send({ comment: "keep-alive" });
    // the next poll of the shared poller wakes the stream; the timer only covers a poller that stalls
    await Promise.race([subscription.next(), signal.wait(options.keepAliveMs)]);
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
