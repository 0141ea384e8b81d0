/**
 * The webhook delivery worker (docs/webhooks.md), started with the API process. Several slots
 * each loop: claim a due subscription (repositories/webhooks.ts: a lease over FOR UPDATE SKIP
 * LOCKED, so replicas and slots never hold the same one), read the log for it when its queue is
 * empty (services/webhooks.ts) and store the queue and the new cursor, then POST the queue's
 * messages one at a time, each only after the previous one was acknowledged (2xx): in block order,
 * at least once (a message is removed from the stored queue only after its 2xx; a crash between
 * the two sends it again, same id). A failure ends the claim with a retry after an exponential
 * backoff; too many failures in a row, or failing for too long, pauses the subscription with the
 * reason. Everything lives in PostgreSQL: a restarted process goes on from the stored cursor and
 * queue.
 *
 * The log is polled once per interval for all subscriptions (its version: head and newest event,
 * shared by the slots, as the event stream's feed shares its poll): a subscription whose last read
 * found nothing more is read again only once the version moved since that read.
 */
import { randomUUID } from "node:crypto";
import type { Logger } from "pino";
import type { OffchainDb } from "../../db/client";
import type { WebhookConfig } from "../config";
import { logVersion } from "../repositories/events";
import {
  claimDueWebhook,
  markWebhookDelivered,
  markWebhookFailed,
  releaseWebhook,
  saveWebhookProgress,
  type WebhookRow,
} from "../repositories/webhooks";
import {
  closeDeliveryAgents,
  createDeliveryAgents,
  deliverWebhook,
  deliveryIdOf,
  type DeliveryAgents,
} from "./webhook-delivery";
import { readWebhookProgress, WEBHOOK_BATCH } from "./webhooks";

const DEFAULT_SLOTS = 4;
/** Subscriptions whose last read this worker remembers; forgetting costs one read each. */
const MAX_REMEMBERED_READS = 10_000;

export interface WebhookWorkerOptions {
  db: OffchainDb;
  viewsSchema: string;
  config: WebhookConfig;
  logger: Pick<Logger, "warn" | "info">;
  /** Subscriptions delivered at once by this worker. */
  slots?: number;
  batchSize?: number;
}

/** The delay before retry number `failures` (1 = after the first failure): doubling, capped. */
export function retryDelayMs(config: Pick<WebhookConfig, "retryBaseMs" | "retryMaxDelayMs">, failures: number): number {
  const exponent = Math.min(Math.max(failures - 1, 0), 40);
  return Math.min(config.retryBaseMs * 2 ** exponent, config.retryMaxDelayMs);
}

/** Why a subscription with `failures` failures in a row, the first at `since`, is paused; undefined: retry. */
export function pauseReason(
  config: Pick<WebhookConfig, "maxFailures" | "retryForMs">,
  failures: number,
  since: Date,
  now: Date,
  error: string,
): string | undefined {
  if (failures >= config.maxFailures) return `${failures} failed deliveries in a row (last: ${error})`;
  if (now.getTime() - since.getTime() >= config.retryForMs) {
    return `deliveries failing since ${since.toISOString()} (last: ${error})`;
  }
  return undefined;
}

export class WebhookWorker {
  private running: Promise<void>[] = [];
  private stopping = false;
  private abort = new AbortController();
  private sleepers = new Set<() => void>();
  private agents: DeliveryAgents | undefined;
  private failing = false;
  /** The log's version, polled at most once per interval whatever the number of subscriptions and slots. */
  private version: { read: Promise<string | undefined>; at: number } | undefined;
  /** Per subscription: the log's version (and its cursor) when a read last found nothing more after its cursor. */
  private readUpTo = new Map<string, string>();
  /** Messages acknowledged and attempts failed by this worker (tests and metrics). */
  delivered = 0;
  failed = 0;
  /** Polls of the log's version, and reads of the log for one subscription, by this worker (tests). */
  versionPolls = 0;
  logReads = 0;

  constructor(private readonly options: WebhookWorkerOptions) {}

  get leaseMs(): number {
    // longer than a delivery can take, so a live claim never runs out mid-delivery
    return this.options.config.timeoutMs * 2 + 5_000;
  }

  start(): void {
    if (this.running.length > 0) return;
    this.stopping = false;
    this.abort = new AbortController();
    this.agents = createDeliveryAgents();
    for (let i = 0; i < (this.options.slots ?? DEFAULT_SLOTS); i++) this.running.push(this.slot());
  }

  /** Stops claiming, cuts deliveries in flight (their subscriptions are due again at once, for any replica) and waits. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.abort.abort();
    for (const wake of this.sleepers) wake();
    await Promise.all(this.running.splice(0));
    if (this.agents) closeDeliveryAgents(this.agents);
    this.agents = undefined;
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.sleepers.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.sleepers.add(done);
    });
  }

  private async slot(): Promise<void> {
    while (!this.stopping) {
      let worked = false;
      try {
        worked = await this.runOnce();
        this.failing = false;
      } catch (error) {
        if (!this.failing) this.options.logger.warn({ err: error }, "webhooks: the worker's database work failed; retrying");
        this.failing = true;
      }
      if (!worked && !this.stopping) await this.sleep(this.options.config.pollIntervalMs);
    }
  }

  /** The log's version of this interval (read before any subscription's read that relies on it). */
  private logVersion(): Promise<string | undefined> {
    const now = Date.now();
    if (!this.version || now - this.version.at >= this.options.config.pollIntervalMs) {
      this.versionPolls += 1;
      const read = logVersion(this.options.db, this.options.viewsSchema);
      const version = { read, at: now };
      this.version = version;
      read.catch(() => {
        if (this.version === version) this.version = undefined;
      });
    }
    return this.version.read;
  }

  /** Claims one due subscription and works on it; false when none was due. */
  async runOnce(): Promise<boolean> {
    const token = randomUUID();
    const row = await claimDueWebhook(this.options.db, token, this.leaseMs);
    if (!row) return false;
    try {
      await this.work(row, token);
    } catch (error) {
      await releaseWebhook(this.options.db, row.id, token, this.options.config.pollIntervalMs).catch(() => undefined);
      throw error;
    }
    return true;
  }

  private async work(row: WebhookRow, token: string): Promise<void> {
    const { db, viewsSchema, config } = this.options;
    let queue = row.queue;
    if (queue.length === 0) {
      const version = await this.logVersion();
      const seen = version === undefined ? undefined : `${version}@${row.cursorId}`;
      // nothing indexed, removed or replaced since this subscription's last read found nothing more
      if (seen !== undefined && this.readUpTo.get(row.id) === seen) return releaseWebhook(db, row.id, token, config.pollIntervalMs);
      this.logReads += 1;
      const read = await readWebhookProgress(db, viewsSchema, row, this.options.batchSize ?? WEBHOOK_BATCH);
      if (!read?.changed) {
        if (seen !== undefined && read) {
          if (this.readUpTo.size >= MAX_REMEMBERED_READS) this.readUpTo.clear();
          this.readUpTo.set(row.id, seen);
        }
        return releaseWebhook(db, row.id, token, config.pollIntervalMs);
      }
      this.readUpTo.delete(row.id);
      if (!(await saveWebhookProgress(db, row.id, token, read))) return;
      queue = read.queue;
      if (queue.length === 0) return releaseWebhook(db, row.id, token, read.full ? 0 : config.pollIntervalMs);
    }
    const policy = { allowPrivate: config.allowPrivate };
    let failures = row.failureCount;
    let since = row.firstFailureAt;
    for (let i = 0; i < queue.length; i++) {
      if (this.stopping || !this.agents) return releaseWebhook(db, row.id, token, 0);
      const message = queue[i]!;
      const outcome = await deliverWebhook(row, message, {
        timeoutMs: config.timeoutMs,
        policy,
        agents: this.agents,
        signal: this.abort.signal,
      });
      if (outcome.ok) {
        this.delivered += 1;
        const kept = await markWebhookDelivered(db, row.id, token, {
          deliveredId: deliveryIdOf(message),
          queue: queue.slice(i + 1),
          leaseMs: this.leaseMs,
        });
        if (!kept) return;
        failures = 0;
        since = null;
        continue;
      }
      if (outcome.aborted) return releaseWebhook(db, row.id, token, 0);
      this.failed += 1;
      failures += 1;
      const now = new Date();
      const paused = pauseReason(config, failures, since ?? now, now, outcome.error);
      if (paused) this.options.logger.info({ webhook: row.id, reason: paused }, "webhook subscription paused");
      return markWebhookFailed(db, row.id, token, {
        error: outcome.error,
        retryInMs: retryDelayMs(config, failures),
        pausedReason: paused,
      });
    }
    // the queue is delivered: more events may wait
    return releaseWebhook(db, row.id, token, 0);
  }
}

/** The process's worker, unless WEBHOOK_WORKER_ENABLED=false. */
export function createWebhookWorker(options: WebhookWorkerOptions): WebhookWorker | null {
  if (!options.config.workerEnabled) return null;
  return new WebhookWorker(options);
}
