/**
 * Webhook subscriptions (docs/webhooks.md): an agent subscribes a URL to the protocol event
 * stream's kinds and filters (the SSE stream's, services/events.ts). This module holds what the
 * routes and the delivery worker share: checking a URL (public addresses only, lib/public-address),
 * the subscription's start, its presentation, and one read of the log for it — the SSE stream's
 * queries (repositories/events.ts) in one snapshot: which remembered events a reorg removed
 * (retractions), then the next events after its cursor.
 */
import { randomBytes } from "node:crypto";
import {
  comparePositions,
  EVENT_KINDS,
  type EventKind,
  type EventPosition,
  type Topic,
} from "../../../src/lib/event-log";
import type { OffchainDb } from "../../db/client";
import type { WebhookMark, WebhookMessage } from "../../db/offchain";
import { badRequest, notFound, serviceUnavailable } from "../../http/errors";
import { PrivateAddressError, resolvePublicAddresses, type AddressPolicy } from "../../lib/public-address";
import { FINALITY_DEPTH } from "../../reorgs/reconciler";
import type { WebhookConfig } from "../config";
import { type EventRow, eventsBetween, existingEventIds, indexedBlockNumber } from "../repositories/events";
import type { Executor } from "../repositories/subnets";
import {
  countAgentWebhooks,
  deleteAgentWebhook,
  findAgentWebhook,
  insertWebhook,
  listAgentWebhooks,
  resumeAgentWebhook,
  type WebhookProgress,
  type WebhookRow,
} from "../repositories/webhooks";
import { presentEvent } from "./event-feed";
import { topicsOf } from "./events";

export { EVENT_KINDS };

/** Secrets are `whsec_` + 32 random bytes in base64url. */
export const WEBHOOK_SECRET_PREFIX = "whsec_";
/** Events read per statement for one subscription. */
export const WEBHOOK_BATCH = 100;
/** Events of the last blocks a subscription started "now" remembers, at most (for a reorg of its start). */
const MAX_START_WINDOW = 1_000;
/** Above every log index (the column is a PostgreSQL integer). */
const MAX_LOG_INDEX = 2_147_483_647;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

interface Mark {
  id: string;
  blockNumber: bigint;
  logIndex: number;
}
const ORIGIN: Mark = { id: "0", blockNumber: -1n, logIndex: 0 };
const markOf = (row: EventRow): Mark => ({ id: row.id, blockNumber: row.blockNumber, logIndex: row.logIndex });
const positionOf = (mark: Mark): EventPosition => ({ blockNumber: mark.blockNumber, logIndex: mark.logIndex });
const fromStored = ([id, block, logIndex]: WebhookMark): Mark => ({ id, blockNumber: BigInt(block), logIndex });
const toStored = (mark: Mark, delivered: boolean): WebhookMark => [mark.id, mark.blockNumber.toString(), mark.logIndex, delivered];

/**
 * 400 unless `raw` is an http(s) URL without credentials whose host resolves, only to public
 * addresses (unless the policy allows private ones).
 */
export async function checkWebhookUrl(raw: string, policy: AddressPolicy): Promise<URL> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw badRequest("url must be an absolute http or https URL");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw badRequest("url must be an http or https URL");
  if (url.username !== "" || url.password !== "") throw badRequest("url must not carry credentials");
  try {
    await resolvePublicAddresses(url.hostname, policy);
  } catch (error) {
    if (error instanceof PrivateAddressError) throw badRequest("url must resolve to public addresses only");
    throw badRequest("url's host does not resolve");
  }
  return url;
}

export interface WebhookFilters {
  kinds: EventKind[];
  datanet?: bigint;
  pod?: bigint;
  wallet?: `0x${string}`;
}

function topicsOfRow(row: Pick<WebhookRow, "datanet" | "pod" | "wallet">): Topic[] {
  return topicsOf({
    datanet: row.datanet === null ? undefined : BigInt(row.datanet),
    pod: row.pod === null ? undefined : BigInt(row.pod),
    wallet: (row.wallet ?? undefined) as `0x${string}` | undefined,
  });
}

/**
 * Where a new subscription starts: from the first event (`replay`), or now: after the last event
 * indexed, remembering the events of the last blocks as not delivered (a reorg of them rewinds the
 * cursor without retracting anything the receiver never got).
 */
async function startOf(db: OffchainDb, viewsSchema: string, topics: Topic[], replay: boolean) {
  if (replay) return { cursor: ORIGIN, floor: ORIGIN, recent: [] as WebhookMark[] };
  return db.transaction(
    async (tx) => {
      const head = await indexedBlockNumber(tx, viewsSchema);
      if (head === undefined) throw serviceUnavailable("Indexer not ready");
      const bound = head - FINALITY_DEPTH;
      const rows = await eventsBetween(tx, topics, {
        after: { blockNumber: bound, logIndex: MAX_LOG_INDEX },
        until: head,
        limit: MAX_START_WINDOW + 1,
        take: "last",
      });
      const floorRow = bound >= 0n ? (await eventsBetween(tx, topics, { until: bound, limit: 1, take: "last" }))[0] : undefined;
      let floor = floorRow ? markOf(floorRow) : ORIGIN;
      const marks = rows.map(markOf);
      if (marks.length > MAX_START_WINDOW) floor = marks.shift()!;
      return { cursor: marks.at(-1) ?? floor, floor, recent: marks.map((m) => toStored(m, false)) };
    },
    { isolationLevel: "repeatable read", accessMode: "read only" },
  );
}

export async function createWebhook(
  db: OffchainDb,
  input: { agentId: string; config: WebhookConfig; viewsSchema: string; url: string; filters: WebhookFilters; replay: boolean },
): Promise<WebhookRow> {
  const { agentId, config, filters } = input;
  const url = await checkWebhookUrl(input.url, { allowPrivate: config.allowPrivate });
  if ((await countAgentWebhooks(db, agentId)) >= config.maxPerAgent) {
    throw badRequest(`At most ${config.maxPerAgent} webhook subscriptions per agent`);
  }
  const topics = topicsOf(filters);
  const start = await startOf(db, input.viewsSchema, topics, input.replay);
  return insertWebhook(db, {
    agentId,
    url: url.toString(),
    kinds: [...new Set(filters.kinds)],
    datanet: filters.datanet?.toString() ?? null,
    pod: filters.pod?.toString() ?? null,
    wallet: filters.wallet?.toLowerCase() ?? null,
    secret: WEBHOOK_SECRET_PREFIX + randomBytes(32).toString("base64url"),
    cursorId: start.cursor.id,
    cursorBlock: start.cursor.blockNumber.toString(),
    cursorLogIndex: start.cursor.logIndex,
    floorId: start.floor.id,
    floorBlock: start.floor.blockNumber.toString(),
    floorLogIndex: start.floor.logIndex,
    recent: start.recent,
  });
}

export const listWebhooks = listAgentWebhooks;

/** The agent's own subscription, else 404 (another agent's too). */
export async function requireOwnWebhook(db: OffchainDb, agentId: string, id: string): Promise<WebhookRow> {
  const row = UUID.test(id) ? await findAgentWebhook(db, agentId, id) : undefined;
  if (!row) throw notFound("Webhook subscription not found");
  return row;
}

export async function deleteWebhook(db: OffchainDb, agentId: string, id: string): Promise<void> {
  if (!UUID.test(id) || !(await deleteAgentWebhook(db, agentId, id))) throw notFound("Webhook subscription not found");
}

export async function resumeWebhook(db: OffchainDb, agentId: string, id: string): Promise<WebhookRow> {
  const row = UUID.test(id) ? await resumeAgentWebhook(db, agentId, id) : undefined;
  if (!row) throw notFound("Webhook subscription not found");
  return row;
}

const iso = (date: Date | null) => (date ? date.toISOString() : null);

/** A subscription as its owner sees it (the secret only at creation). */
export function presentWebhook(row: WebhookRow) {
  return {
    id: row.id,
    url: row.url,
    kinds: row.kinds,
    filters: { datanet: row.datanet, pod: row.pod, wallet: row.wallet },
    status: row.status as "active" | "paused",
    pausedReason: row.pausedReason,
    lastError: row.lastError,
    failureCount: row.failureCount,
    pending: row.queue.length,
    cursor: row.cursorId,
    lastDeliveredId: row.lastDeliveredId,
    lastDeliveredAt: iso(row.lastDeliveredAt),
    lastAttemptAt: iso(row.lastAttemptAt),
    nextAttemptAt: iso(row.nextAttemptAt),
    createdAt: row.createdAt.toISOString(),
  };
}

export type WebhookRead = WebhookProgress & {
  /** More events may wait after the cursor (the read was a full batch). */
  full: boolean;
  /** Something to store: the cursor moved, remembered events changed, or messages were queued. */
  changed: boolean;
};

/**
 * One read of the log for a subscription whose queue is empty, in one snapshot: retractions of the
 * delivered events a reorg removed (newest last; the cursor goes back to the last event left), then
 * the next events after the cursor that match its filters (all passed, those of its kinds queued).
 * What became final is forgotten. Undefined before the indexer's checkpoint exists.
 */
export async function readWebhookProgress(
  db: OffchainDb,
  viewsSchema: string,
  row: WebhookRow,
  batchSize = WEBHOOK_BATCH,
): Promise<WebhookRead | undefined> {
  const topics = topicsOfRow(row);
  const kinds = new Set(row.kinds);
  return db.transaction(
    async (tx: Executor) => {
      const head = await indexedBlockNumber(tx, viewsSchema);
      if (head === undefined) return undefined;
      let cursor: Mark = { id: row.cursorId, blockNumber: BigInt(row.cursorBlock), logIndex: row.cursorLogIndex };
      let floor: Mark = { id: row.floorId, blockNumber: BigInt(row.floorBlock), logIndex: row.floorLogIndex };
      let recent = [...row.recent];
      let skipped = [...row.skipped];
      const queue: WebhookMessage[] = [];
      let changed = false;

      if (recent.length > 0) {
        const existing = await existingEventIds(
          tx,
          recent.map((m) => m[0]),
        );
        const firstGone = recent.findIndex((m) => !existing.has(m[0]));
        if (firstGone >= 0) {
          // a reorg removes whole blocks from the fork on: every event after the first lost one goes too
          const gone = recent.slice(firstGone);
          recent = recent.slice(0, firstGone);
          const last = recent.at(-1);
          cursor = last ? fromStored(last) : floor;
          changed = true;
          for (const [id, block, , delivered] of gone) {
            if (delivered) queue.push({ event: "retraction", id, body: JSON.stringify({ id, reason: "reorg" }) });
            else skipped.push([id, block]);
          }
        }
      }

      const rows = await eventsBetween(tx, topics, { after: positionOf(cursor), until: head, limit: batchSize });
      const never = new Set(skipped.map(([id]) => id));
      for (const event of rows) {
        if (comparePositions(event, positionOf(cursor)) <= 0) continue;
        // an event the receiver never got, back after a reorg undid and redid its block: still not sent
        const wanted = (kinds.size === 0 || kinds.has(event.kind)) && !never.has(event.id);
        if (wanted) queue.push({ event: event.kind, id: event.id, body: JSON.stringify(presentEvent(event)) });
        cursor = markOf(event);
        recent.push(toStored(cursor, wanted));
        changed = true;
      }

      // what is final can no longer be removed: forget it
      const finalUpTo = head - FINALITY_DEPTH;
      let keepFrom = recent.findIndex((m) => BigInt(m[1]) > finalUpTo);
      if (keepFrom < 0) keepFrom = recent.length;
      if (keepFrom > 0) {
        floor = fromStored(recent[keepFrom - 1]!);
        recent = recent.slice(keepFrom);
        changed = true;
      }
      const unfinal = skipped.filter(([, block]) => BigInt(block) > finalUpTo);
      if (unfinal.length !== skipped.length) {
        skipped = unfinal;
        changed = true;
      }
      return { cursor, floor, recent, skipped, queue, full: rows.length === batchSize, changed };
    },
    { isolationLevel: "repeatable read", accessMode: "read only" },
  );
}
