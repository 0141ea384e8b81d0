/**
 * The event stream's shared poller: one per Platform API app (so one per process). Every
 * interval it runs ONE statement (repositories/event-feed.ts) whatever the number of open
 * streams: the indexed head, whether the blocks it remembers still exist (a reorg removes them),
 * and the next events of the whole log with the subjects the open streams filter on. It hands
 * each batch, as one shared note, to every stream that joined it; each stream applies its own
 * filters in memory (services/events.ts). A stream that starts or resumes catches up with its
 * own paged queries first, then joins (`tryJoin`) once it has reached the poller's cursor.
 *
 * The poller runs while at least one stream is subscribed: it starts with the first, stops with
 * the last (its state is dropped: the next start reads "now" again) and on `close()`. Its timer
 * is unref'd, so it never keeps the process alive.
 */
import type { Logger } from "pino";
import type { EventPosition, Topic } from "../../../src/lib/event-log";
import type { OffchainDb } from "../../db/client";
import { FINALITY_DEPTH } from "../../reorgs/reconciler";
import type { EventRow } from "../repositories/events";
import { readFeed, readFeedStart } from "../repositories/event-feed";

export interface Mark {
  id: string;
  position: EventPosition;
}

/** `${blockNumber}-${16 hex digits of the block hash}` of an event id: the block it belongs to. */
export function blockKeyOf(id: string): string {
  const first = id.indexOf("-");
  const second = id.indexOf("-", first + 1);
  return `${id.slice(0, first)}${id.slice(second)}`;
}

/** An event of the log as the feed hands it out: its row, its topics among the subscribed ones, its `data:` line. */
export interface FeedEvent {
  row: EventRow;
  mark: Mark;
  topics: ReadonlySet<string>;
  /** JSON of the event (presented once for every stream). */
  data: string;
}

/** What one poll found, shared by every joined stream. */
export interface FeedNote {
  head: bigint;
  /** Blocks (`blockKeyOf`) a reorg removed: every event of a stream from the first one in them on is gone. */
  gone?: ReadonlySet<string>;
  events: readonly FeedEvent[];
  /** The subscriptions' topics version the poll read with (a newer subscription's topics may be missing). */
  topicsVersion: number;
}

/** A stream's place in the feed. */
export class FeedSubscription {
  joined = false;
  /** Notes not yet applied by the stream (joined only). */
  notes: FeedNote[] = [];
  /** The head of the last poll (for forgetting what became final). */
  head: bigint | undefined;
  /** A poll finished since the stream last looked (a keep-alive may be due). */
  ticked = false;
  private waiter: (() => void) | undefined;

  constructor(
    readonly topics: readonly Topic[],
    readonly topicsVersion: number,
  ) {}

  /** Resolves at the next poll or note (at once when one is pending; a pending poll is consumed). */
  next(): Promise<void> {
    if (this.ticked || this.notes.length > 0) {
      this.ticked = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      this.waiter = resolve;
    });
  }

  /** The pending notes, and the tick flag cleared. */
  take(): FeedNote[] {
    this.ticked = false;
    return this.notes.splice(0);
  }

  notify(): void {
    const waiter = this.waiter;
    this.waiter = undefined;
    waiter?.();
  }
}

export interface EventFeedOptions {
  db: OffchainDb;
  viewsSchema: string;
  pollIntervalMs: number;
  logger: Pick<Logger, "warn">;
  /** Events read per statement (a full batch is followed by the next statement at once). */
  batchSize: number;
  /** Notes a stream may leave unapplied (a slow client) before it leaves the feed and catches up by itself. */
  maxQueuedNotes?: number;
}

interface BlockMark {
  key: string;
  blockNumber: bigint;
  /** An event of the block: all of a block's events are removed together. */
  probeId: string;
  /** The last event read in the block. */
  last: Mark;
}

interface FeedState {
  head: bigint;
  cursor: Mark;
  /** The last event of the newest final block read (or the origin). */
  floor: Mark;
  /** Blocks after the floor with events read, in order. */
  blocks: BlockMark[];
  /** Blocks of joined streams' remembered events that the feed did not read itself (they read them in a newer snapshot). */
  watched: Map<string, { blockNumber: bigint; probeId: string }>;
}

export const ORIGIN: Mark = { id: "0", position: { blockNumber: -1n, logIndex: 0 } };
const DEFAULT_MAX_QUEUED_NOTES = 64;

/** The shared poller of the event log: one statement per interval for all open streams. */
export class EventFeed {
  private readonly subscriptions = new Set<FeedSubscription>();
  private readonly topicCounts = new Map<string, number>();
  private topicsVersion = 0;
  private state: FeedState | undefined;
  /** Changes whenever the cursor moves or a reorg rewinds it (a catching-up stream's target is stale). */
  private version = 0;
  private timer: NodeJS.Timeout | undefined;
  /** The run of the latest poll still in flight. */
  private inFlight: number | undefined;
  private pollingTopicsVersion = 0;
  /** Bumped on every stop: a poll of an earlier run is discarded. */
  private run = 0;
  private failing = false;
  private closed = false;
  /** Statements run (for tests and measurements). */
  statements = 0;
  /** Poll cycles completed. */
  polls = 0;

  constructor(private readonly options: EventFeedOptions) {}

  get running(): boolean {
    return this.timer !== undefined || this.inFlight === this.run;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Streams subscribed (catching up or joined). */
  get size(): number {
    return this.subscriptions.size;
  }

  /** Streams that joined the feed (they read nothing by themselves). */
  get joined(): number {
    let count = 0;
    for (const subscription of this.subscriptions) if (subscription.joined) count += 1;
    return count;
  }

  /** Registers a stream (its topics are read from the next poll on) and starts the poller if it was idle. */
  subscribe(topics: readonly Topic[]): FeedSubscription {
    let added = false;
    for (const topic of topics) {
      const count = this.topicCounts.get(topic) ?? 0;
      if (count === 0) added = true;
      this.topicCounts.set(topic, count + 1);
    }
    if (added) this.topicsVersion += 1;
    const subscription = new FeedSubscription(topics, this.topicsVersion);
    this.subscriptions.add(subscription);
    if (!this.closed && !this.running) this.schedule(0);
    return subscription;
  }

  /** Removes a stream; the last one stops the poller. */
  unsubscribe(subscription: FeedSubscription): void {
    if (!this.subscriptions.delete(subscription)) return;
    subscription.joined = false;
    subscription.notes = [];
    for (const topic of subscription.topics) {
      const count = (this.topicCounts.get(topic) ?? 1) - 1;
      if (count <= 0) this.topicCounts.delete(topic);
      else this.topicCounts.set(topic, count);
    }
    if (this.subscriptions.size === 0) this.stop();
  }

  /** The cursor a catching-up stream reads up to, with the version it belongs to; undefined before the first poll. */
  target(): { cursor: Mark; head: bigint; version: number } | undefined {
    if (!this.state) return undefined;
    return { cursor: this.state.cursor, head: this.state.head, version: this.version };
  }

  /**
   * Joins a stream that has read every event of its own up to the target of `version`: from now on
   * it gets every note. Refused (false) when the feed moved since, or a poll that started before
   * the stream subscribed (without its topics) is still running: the stream catches up again.
   * `remembered` are the stream's events that a reorg could still remove; the feed watches the
   * blocks of those it did not read itself.
   */
  tryJoin(subscription: FeedSubscription, version: number, remembered: readonly Mark[]): boolean {
    const state = this.state;
    if (!state || version !== this.version || !this.subscriptions.has(subscription)) return false;
    if (this.inFlight === this.run && this.pollingTopicsVersion < subscription.topicsVersion) return false;
    const known = new Set(state.blocks.map((block) => block.key));
    for (const mark of remembered) {
      const key = blockKeyOf(mark.id);
      if (!known.has(key) && !state.watched.has(key)) {
        state.watched.set(key, { blockNumber: mark.position.blockNumber, probeId: mark.id });
      }
    }
    subscription.joined = true;
    subscription.head = state.head;
    subscription.notes = [];
    return true;
  }

  /** Leaves the feed but stays subscribed (a slow stream that will catch up by itself). */
  leave(subscription: FeedSubscription): void {
    subscription.joined = false;
    subscription.notes = [];
  }

  /** Stops the poller for good (shutdown); open streams end at their next wake-up. */
  close(): void {
    this.closed = true;
    this.stop();
    for (const subscription of this.subscriptions) {
      subscription.ticked = true;
      subscription.notify();
    }
  }

  private stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.run += 1;
    this.state = undefined;
    this.version += 1;
  }

  private schedule(ms: number): void {
    const run = this.run;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.poll(run);
    }, ms);
    this.timer.unref();
  }

  private publish(note: FeedNote): void {
    const limit = this.options.maxQueuedNotes ?? DEFAULT_MAX_QUEUED_NOTES;
    for (const subscription of this.subscriptions) {
      if (!subscription.joined) continue;
      if (subscription.notes.length >= limit) {
        // a slow client: it leaves the feed and catches up from its own state when it can
        this.leave(subscription);
      } else {
        subscription.notes.push(note);
      }
      subscription.notify();
    }
  }

  /** One poll cycle: statements until a batch comes back not full (usually one), then the next in an interval. */
  private async poll(run: number): Promise<void> {
    this.inFlight = run;
    this.pollingTopicsVersion = this.topicsVersion;
    try {
      for (;;) {
        if (!this.state) {
          this.statements += 1;
          const start = await readFeedStart(this.options.db, this.options.viewsSchema, FINALITY_DEPTH);
          if (run !== this.run) return;
          if (!start) break;
          const mark = (row: { id: string; blockNumber: bigint; logIndex: number }): Mark => ({
            id: row.id,
            position: { blockNumber: row.blockNumber, logIndex: row.logIndex },
          });
          const blocks = start.blocks.map((row) => ({
            key: blockKeyOf(row.id),
            blockNumber: row.blockNumber,
            probeId: row.id,
            last: mark(row),
          }));
          const floor = start.floor ? mark(start.floor) : ORIGIN;
          this.state = { head: start.head, cursor: blocks.at(-1)?.last ?? floor, floor, blocks, watched: new Map() };
          this.version += 1;
          break;
        }
        const state = this.state;
        const topicsVersion = this.topicsVersion;
        this.pollingTopicsVersion = topicsVersion;
        this.statements += 1;
        const read = await readFeed(this.options.db, this.options.viewsSchema, {
          after: state.cursor.position,
          checkIds: [...state.blocks.map((block) => block.probeId), ...[...state.watched.values()].map((w) => w.probeId)],
          topics: [...this.topicCounts.keys()],
          limit: this.options.batchSize,
        });
        if (run !== this.run) return;
        if (!read) break;
        state.head = read.head;

        // a reorg removes whole blocks from the fork on: every block after the first lost one goes too
        const gone = new Set<string>();
        const firstGone = state.blocks.findIndex((block) => !read.existing.has(block.probeId));
        if (firstGone >= 0) {
          for (const block of state.blocks.slice(firstGone)) gone.add(block.key);
          state.blocks = state.blocks.slice(0, firstGone);
          state.cursor = state.blocks.at(-1)?.last ?? state.floor;
        }
        for (const [key, watched] of state.watched) {
          if (!read.existing.has(watched.probeId)) {
            gone.add(key);
            state.watched.delete(key);
          }
        }
        if (gone.size > 0) {
          this.version += 1;
          this.publish({ head: read.head, gone, events: [], topicsVersion });
          // the batch was read after the lost cursor: read again after the one that is left
          if (firstGone >= 0) continue;
        }

        const events: FeedEvent[] = read.events.map((row) => {
          const mark: Mark = { id: row.id, position: { blockNumber: row.blockNumber, logIndex: row.logIndex } };
          return { row, mark, topics: read.topics.get(row.id) ?? new Set(), data: JSON.stringify(presentEvent(row)) };
        });
        for (const event of events) {
          const key = blockKeyOf(event.row.id);
          const last = state.blocks.at(-1);
          if (last?.key === key) last.last = event.mark;
          else state.blocks.push({ key, blockNumber: event.row.blockNumber, probeId: event.row.id, last: event.mark });
          state.watched.delete(key);
          state.cursor = event.mark;
        }
        // what is final can no longer be removed: forget it
        const finalUpTo = read.head - FINALITY_DEPTH;
        let keepFrom = state.blocks.findIndex((block) => block.blockNumber > finalUpTo);
        if (keepFrom < 0) keepFrom = state.blocks.length;
        if (keepFrom > 0) {
          state.floor = state.blocks[keepFrom - 1]!.last;
          state.blocks = state.blocks.slice(keepFrom);
        }
        for (const [key, watched] of state.watched) if (watched.blockNumber <= finalUpTo) state.watched.delete(key);

        if (events.length > 0) {
          this.version += 1;
          this.publish({ head: read.head, events, topicsVersion });
        }
        if (events.length < this.options.batchSize) break;
      }
      this.failing = false;
    } catch (error) {
      if (!this.failing) this.options.logger.warn({ err: error }, "event stream: reading the event log failed; retrying");
      this.failing = true;
    } finally {
      if (this.inFlight === run) this.inFlight = undefined;
      if (run === this.run) {
        this.polls += 1;
        for (const subscription of this.subscriptions) {
          if (this.state) subscription.head = this.state.head;
          subscription.ticked = true;
          subscription.notify();
        }
        if (!this.closed && this.subscriptions.size > 0) this.schedule(this.options.pollIntervalMs);
      }
    }
  }
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
