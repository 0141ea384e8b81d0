/**
 * Rate limits shared by replicas without a database write per request: each process counts
 * locally and, every `syncIntervalMs`, adds its new counts to `offchain.rate_limits` in ONE
 * statement for all keys used in the current window, reading back each key's total over every
 * replica. Nothing is written while a replica has no traffic.
 *
 * Windows are fixed and aligned to the clock (`floor(now / window)`), so every replica agrees on
 * them without talking to the others. A request is judged on (total at the last sync) + (this
 * process's counts since). Error bound: a key can get at most the requests the OTHER replicas
 * admitted for it during one sync interval (plus the flush's round trip) beyond its budget; with
 * one replica the count is exact. While the database is unreachable each replica keeps counting
 * on its own (its unsent counts are sent once it is back).
 */
import type pg from "pg";
import type { Logger } from "pino";
import { RateLimiterRes, type RateLimiterAbstract } from "rate-limiter-flexible";
import type { RateLimitSettings } from "./rate-limit";

export interface BatchedRateLimiterOptions extends RateLimitSettings {
  pool: pg.Pool;
  /** How often local counts are sent and totals read back (default 250 ms). */
  syncIntervalMs?: number;
  /** At most this many keys per statement (default 2,000). */
  batchSize?: number;
  logger?: Pick<Logger, "warn">;
  now?: () => number;
}

interface Counter {
  /** The key in the shared store (the limiter's key prefix and the caller's key). */
  storeKey: string;
  /** Start (ms) of the window these counts belong to. */
  window: number;
  /** Total over every replica at the last sync (this process's sent counts included). */
  synced: number;
  /** Counted here and not yet sent. */
  pending: number;
  /** Being sent by the running flush. */
  sending: number;
}

/** Everything counted in the counter's window: every replica's at the last sync and this one's since. */
const consumedOf = (counter: Counter) => counter.synced + counter.sending + counter.pending;

const UPSERT = `
  INSERT INTO offchain.rate_limits AS r (key, points, expire)
  SELECT * FROM unnest($1::text[], $2::int[], $3::bigint[])
  ON CONFLICT (key) DO UPDATE SET
    points = CASE WHEN r.expire >= excluded.expire THEN r.points + excluded.points ELSE excluded.points END,
    expire = GREATEST(r.expire, excluded.expire)
  RETURNING key, points, expire`;

/**
 * Answers like rate-limiter-flexible's limiters (`consume` resolves or rejects a RateLimiterRes),
 * which is all the rate-limit middleware uses; keys are stored as `${keyPrefix}:${key}` like theirs.
 */
export class BatchedRateLimiter {
  readonly points: number;
  readonly keyPrefix: string;
  private readonly msDuration: number;
  private readonly pool: pg.Pool;
  private readonly syncIntervalMs: number;
  private readonly batchSize: number;
  private readonly logger?: Pick<Logger, "warn">;
  private readonly now: () => number;
  /** By the caller's key (the store's key is made once per window, not per request). */
  private readonly counters = new Map<string | number, Counter>();
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;
  private failing = false;

  constructor(options: BatchedRateLimiterOptions) {
    this.points = options.points;
    this.keyPrefix = options.keyPrefix;
    this.msDuration = options.windowSeconds * 1000;
    this.pool = options.pool;
    this.syncIntervalMs = options.syncIntervalMs ?? 250;
    this.batchSize = options.batchSize ?? 2_000;
    this.logger = options.logger;
    this.now = options.now ?? Date.now;
  }

  private getKey(key: string | number): string {
    return this.keyPrefix ? `${this.keyPrefix}:${key}` : String(key);
  }

  private windowOf(now: number): number {
    return Math.floor(now / this.msDuration) * this.msDuration;
  }

  private counter(key: string | number, now: number): Counter {
    const window = this.windowOf(now);
    let counter = this.counters.get(key);
    if (!counter || counter.window !== window) {
      counter = { storeKey: this.getKey(key), window, synced: 0, pending: 0, sending: 0 };
      this.counters.set(key, counter);
    }
    return counter;
  }

  consume(key: string | number, pointsToConsume = 1): Promise<RateLimiterRes> {
    const now = this.now();
    const counter = this.counter(key, now);
    counter.pending += pointsToConsume;
    this.schedule();
    const consumed = consumedOf(counter);
    const res = new RateLimiterRes(Math.max(0, this.points - consumed), counter.window + this.msDuration - now, consumed);
    return consumed > this.points ? Promise.reject(res) : Promise.resolve(res);
  }

  private schedule(): void {
    if (this.timer || this.flushing) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.flush();
    }, this.syncIntervalMs);
    this.timer.unref();
  }

  /** Sends the local counts now and reads the totals back (also run by the timer). */
  flush(): Promise<void> {
    this.flushing ??= this.sync().finally(() => {
      this.flushing = undefined;
      if ([...this.counters.values()].some((c) => c.pending > 0)) this.schedule();
    });
    return this.flushing;
  }

  private async sync(): Promise<void> {
    // the process is shutting down: what was not synced is one interval's counts of this replica
    if ((this.pool as { ending?: boolean }).ending) return;
    const currentWindow = this.windowOf(this.now());
    const batch: Counter[] = [];
    for (const [key, counter] of this.counters) {
      if (counter.window < currentWindow) {
        this.counters.delete(key); // a past window: its counts no longer matter
        continue;
      }
      if (counter.pending > 0 && batch.length < this.batchSize) batch.push(counter);
    }
    // keys used in this window without new local counts are refreshed too (others' counts)
    for (const counter of this.counters.values()) {
      if (batch.length >= this.batchSize) break;
      if (counter.pending === 0 && counter.window === currentWindow) batch.push(counter);
    }
    if (batch.length === 0) return;
    for (const counter of batch) {
      counter.sending = counter.pending;
      counter.pending = 0;
    }
    try {
      const { rows } = await this.pool.query<{ key: string; points: number; expire: string }>(UPSERT, [
        batch.map((c) => c.storeKey),
        batch.map((c) => c.sending),
        batch.map((c) => c.window + this.msDuration),
      ]);
      const totals = new Map(rows.map((row) => [row.key, row]));
      for (const counter of batch) {
        const row = totals.get(counter.storeKey);
        if (row && Number(row.expire) === counter.window + this.msDuration) counter.synced = row.points;
        else counter.synced += counter.sending;
        counter.sending = 0;
      }
      this.failing = false;
    } catch (error) {
      for (const counter of batch) {
        counter.pending += counter.sending;
        counter.sending = 0;
      }
      if (!this.failing) this.logger?.warn({ err: error }, "rate-limit sync failed; counting per process until it succeeds");
      this.failing = true;
    }
  }
}

/** A BatchedRateLimiter typed as the limiters the rate-limit middleware and ApiDeps take. */
export function createBatchedRateLimiter(options: BatchedRateLimiterOptions): RateLimiterAbstract {
  return new BatchedRateLimiter(options) as unknown as RateLimiterAbstract;
}
