import { sql } from "drizzle-orm";
import { check, index, integer, jsonb, numeric, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { agents } from "./platform";
import { createdAt, lowerCase, offchain, updatedAt } from "./shared";

/** An event the subscription has passed (`[id, blockNumber, logIndex, delivered]`): kept while a reorg may remove it. */
export type WebhookMark = [id: string, blockNumber: string, logIndex: number, delivered: boolean];

/** A message waiting to be delivered, in order: an event's JSON or a retraction's. */
export interface WebhookMessage {
  /** `vote`, `pod_minted`, … or `retraction`. */
  event: string;
  /** The event's id (a retraction: the removed event's id). */
  id: string;
  body: string;
}

/**
 * A webhook subscription (docs/webhooks.md) and its delivery state: the cursor (the last event of
 * the log the subscription has passed, delivered or not), the events after the finality bound
 * (for retractions), the queue of messages taken from the log and not yet acknowledged, and the
 * lease of the worker delivering it (one at a time across replicas).
 */
export const webhookSubscriptions = offchain.table(
  "webhook_subscriptions",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    agentId: uuid("agent_id")
      .notNull()
      .references(() => agents.id, { onDelete: "cascade" }),
    url: text("url").notNull(),
    /** Kinds delivered; empty: every kind. */
    kinds: text("kinds").array().notNull().default(sql`'{}'::text[]`),
    datanet: numeric("datanet", { precision: 78, scale: 0 }),
    pod: numeric("pod", { precision: 78, scale: 0 }),
    wallet: text("wallet"),
    /** HMAC-SHA256 key of the signatures (answered once at creation). */
    secret: text("secret").notNull(),
    /** `active` or `paused`. */
    status: text("status").notNull().default("active"),
    pausedReason: text("paused_reason"),
    /** The last event passed (`0`: none yet) and its position. */
    cursorId: text("cursor_id").notNull(),
    cursorBlock: numeric("cursor_block", { precision: 78, scale: 0 }).notNull(),
    cursorLogIndex: integer("cursor_log_index").notNull(),
    /** The newest passed event at least the finality depth deep (or `0`): the cursor never goes back beyond it. */
    floorId: text("floor_id").notNull(),
    floorBlock: numeric("floor_block", { precision: 78, scale: 0 }).notNull(),
    floorLogIndex: integer("floor_log_index").notNull(),
    recent: jsonb("recent").$type<WebhookMark[]>().notNull().default([]),
    /**
     * Events the receiver never got (before a "now" start) that a reorg removed, `[id, blockNumber]`:
     * back with the same id (the indexer undid and redid their block), they are still not sent.
     */
    skipped: jsonb("skipped").$type<Array<[id: string, blockNumber: string]>>().notNull().default([]),
    queue: jsonb("queue").$type<WebhookMessage[]>().notNull().default([]),
    /** The last message acknowledged (2xx). */
    lastDeliveredId: text("last_delivered_id"),
    lastDeliveredAt: timestamp("last_delivered_at", { withTimezone: true }),
    /** Failures in a row, since `firstFailureAt`; reset by a 2xx. */
    failureCount: integer("failure_count").notNull().default(0),
    firstFailureAt: timestamp("first_failure_at", { withTimezone: true }),
    lastError: text("last_error"),
    lastAttemptAt: timestamp("last_attempt_at", { withTimezone: true }),
    /** When the worker looks at it next (new events, or the next retry). */
    nextAttemptAt: timestamp("next_attempt_at", { withTimezone: true }).notNull().defaultNow(),
    /** The claim of the worker delivering it: its token and until when it holds. */
    leaseToken: uuid("lease_token"),
    leaseUntil: timestamp("lease_until", { withTimezone: true }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index("webhook_subscriptions_agent_idx").on(t.agentId, t.createdAt),
    index("webhook_subscriptions_due_idx").on(t.nextAttemptAt).where(sql`${t.status} = 'active'`),
    check("webhook_subscriptions_status", sql`${t.status} IN ('active', 'paused')`),
    check("webhook_subscriptions_wallet_lower_case", lowerCase(t.wallet)),
  ],
);
