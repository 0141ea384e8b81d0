/**
 * The indexed pods and their listing, kept per process (pod-table.ts) and brought up to date from
 * what changed since the last refresh, so a total or a deep page's boundary after a mint, a link,
 * a ban or a republish costs the change, not a count over every listed pod (~200 ms at 100k).
 *
 * A request reads the list's stamp (count-cache.ts, three index lookups); when it differs from the
 * table's, one refresh runs for all waiting requests, in one read-only REPEATABLE READ snapshot:
 * - the pods the chain changed: the `pod_minted`, `pod_republished` and `pod_invalidated` events
 *   (the events that move `pod_list_change`) from the block of the last change the table has
 *   seen. That change must still be indexed: otherwise a reorg took it back, and the table is read
 *   again whole, as it is when it is first needed and when the views point at another
 *   deployment (a reindex may compute the same pods otherwise);
 * - the token ids whose listing an off-chain write changed: offchain.list_changes (migration
 *   0009), the rows of the transactions the last refresh's snapshot did not see;
 * - those pods' rows, read again by token id.
 * More than MAX_CHANGES changes, a TRUNCATE or a last refresh older than the log keeps read the
 * table again whole. A value past 2^53 gives the table up until the views point at another
 * deployment, a view missing mid-refresh (the indexer switching views) until the stamp moves;
 * meanwhile callers count in SQL.
 */
import { is, sql, type SQL } from "drizzle-orm";
import { PgTransaction } from "drizzle-orm/pg-core";
import { eventLogId } from "../../../src/lib/event-log";
import { chain, viewsDeploymentSql } from "../../db/chain";
import type { OffchainDb } from "../../db/client";
import { isUndefinedTable } from "../../db/errors";
import { isStaleConnectionError } from "../../db/stale-connections";
import { listChanges, podDrafts } from "../../db/offchain";
import { listStamp, listStampSql, stampDeployment } from "./count-cache";
import { PodTable, type PodEntry, type PodFilter } from "./pod-table";
import type { Executor } from "./subnets";

/** More changed pods than this in one refresh: reading the whole table is as cheap. */
const MAX_CHANGES = 5_000;
/** A refresh older than this reads the whole table: the log keeps a day (migration 0009). */
const MAX_REFRESH_AGE_MS = 12 * 60 * 60 * 1000;
const LIST_EVENT_KINDS = ["pod_minted", "pod_republished", "pod_invalidated"];

export interface ListedPods {
  /** The stamp of the listed set the table reflects (count-cache.ts). */
  stamp: string;
  table: PodTable;
}

interface Refreshed extends ListedPods {
  /** pg_current_snapshot() of the refresh. */
  snapshot: string;
  /** `pod_list_change` of the refresh: the last list change it saw. */
  lastChange: { id: string; blockNumber: bigint } | null;
  /** The deployment behind the views (api/db/chain.ts). */
  deployment: string | null;
  at: number;
}

/** Why the table does not serve, and the stamp it gave up at. */
type GaveUp = { until: "another deployment" | "another stamp"; stamp: string };

const stillGivenUp = (gaveUp: GaveUp, stamp: string) =>
  gaveUp.until === "another stamp" ? stamp === gaveUp.stamp : stampDeployment(stamp) === stampDeployment(gaveUp.stamp);

class ListedPodsState {
  current: Refreshed | undefined;
  gaveUp: GaveUp | undefined;
  private running: Promise<void> | undefined;

  /** One refresh at a time: a caller that comes while one runs shares it (podsAtStamp may then ask for one more). */
  refresh(db: OffchainDb): Promise<void> {
    this.running ??= refreshState(db, this).finally(() => {
      this.running = undefined;
    });
    return this.running;
  }
}

const states = new WeakMap<object, ListedPodsState>();

/** A refresh that read the table whole, or only the pods that changed (how many). */
export type ListedPodsRefresh = { kind: "whole" } | { kind: "changes"; pods: number };
const refreshWatchers = new Set<(refresh: ListedPodsRefresh) => void>();

/** Told of every refresh until the returned function is called (tests, metrics). */
export function watchListedPodRefreshes(watcher: (refresh: ListedPodsRefresh) => void): () => void {
  refreshWatchers.add(watcher);
  return () => refreshWatchers.delete(watcher);
}

let stopMetricsWatcher: (() => void) | undefined;

/** Told of every refresh instead of the previous listener (the Platform API counts them in its metrics). */
export function onListedPodRefresh(listener: (refresh: ListedPodsRefresh) => void): void {
  stopMetricsWatcher?.();
  stopMetricsWatcher = watchListedPodRefreshes(listener);
}

const told = (refresh: ListedPodsRefresh) => {
  for (const watcher of refreshWatchers) watcher(refresh);
};

/** Parses a `pod_list_change.last_change` (`blockHash:logIndex`) into the id of its event_log row. */
function lastChangeOf(value: string | null, blockNumber: string | null): Refreshed["lastChange"] {
  if (!value || blockNumber === null) return null;
  const [blockHash, logIndex] = value.split(":");
  if (!blockHash || logIndex === undefined) return null;
  return { id: eventLogId(BigInt(blockNumber), Number(logIndex), blockHash), blockNumber: BigInt(blockNumber) };
}

/** What the table keeps of each pod, its listing included: one text row per pod, in token id order. */
const podEntriesSql = (where: SQL) => sql`
  SELECT string_agg(concat_ws(' ', p.id, p.subnet_id, p.mint_epoch, p.validity_epoch, coalesce(p.invalid_from_epoch::text, '-'),
    CASE WHEN EXISTS (
      SELECT 1 FROM ${podDrafts} d
       WHERE d.token_id = p.id AND d.mint_tx_hash = p.mint_tx_hash AND NOT d.banned AND d.archived_at IS NULL
    ) THEN 1 ELSE 0 END), ',' ORDER BY p.id) AS entries
    FROM ${chain.pod} p WHERE ${where}`;

/** The entries of podEntriesSql; undefined when a value is past 2^53. */
function parseEntries(text: string | null): PodEntry[] | undefined {
  if (!text) return [];
  const entries: PodEntry[] = [];
  for (const row of text.split(",")) {
    const [id, subnetId, mintEpoch, validityEpoch, invalidFrom, listed] = row
      .split(" ")
      .map((v) => (v === "-" ? Number.NaN : Number(v)));
    const entry = {
      id: id!,
      subnetId: subnetId!,
      mintEpoch: mintEpoch!,
      validityEpoch: validityEpoch!,
      invalidFromEpoch: invalidFrom!,
      listed: listed === 1,
    };
    const safe = [entry.id, entry.subnetId, entry.mintEpoch, entry.validityEpoch].every(Number.isSafeInteger);
    if (!safe || !(Number.isNaN(entry.invalidFromEpoch) || Number.isSafeInteger(entry.invalidFromEpoch)))
      return undefined;
    entries.push(entry);
  }
  return entries;
}

/** What one refresh read: the table's next state, and the pods to replace or remove in it. */
type Read =
  | { kind: "same" }
  | { kind: "past 2^53"; stamp: string }
  | { kind: "whole"; head: Omit<Refreshed, "table">; entries: PodEntry[] }
  | { kind: "changes"; head: Omit<Refreshed, "table">; changed: number[]; entries: PodEntry[] };

/** One read-only snapshot of what changed since `before` (or of every pod); changes nothing. */
async function readChanges(db: OffchainDb, before: Refreshed | undefined): Promise<Read> {
  return db.transaction(
    async (tx): Promise<Read> => {
      const [row] = (
        await tx.execute<{
          stamp: string;
          snapshot: string;
          last_change: string | null;
          block_number: string | null;
          deployment: string | null;
        }>(sql`
          SELECT ${listStampSql()} AS stamp, pg_current_snapshot()::text AS snapshot,
            ${chain.podListChange.lastChange} AS last_change, ${chain.podListChange.blockNumber}::text AS block_number,
            ${sql.raw(viewsDeploymentSql())} AS deployment
            FROM (SELECT 1) AS one LEFT JOIN ${chain.podListChange} ON ${chain.podListChange.id} = 1`)
      ).rows;
      if (!row || (before && row.stamp === before.stamp)) return { kind: "same" };
      const head = {
        stamp: row.stamp,
        snapshot: row.snapshot,
        lastChange: lastChangeOf(row.last_change, row.block_number),
        deployment: row.deployment,
        at: Date.now(),
      };
      const incremental =
        before && before.deployment === head.deployment && Date.now() - before.at < MAX_REFRESH_AGE_MS;
      const changed = incremental ? await changedPods(tx, before) : undefined;
      const where = changed ? sql`p.id = ANY(${`{${changed.join(",")}}`}::numeric[])` : sql`true`;
      const entries =
        changed?.length === 0
          ? []
          : parseEntries((await tx.execute<{ entries: string | null }>(podEntriesSql(where))).rows[0]?.entries ?? null);
      if (!entries) return { kind: "past 2^53", stamp: head.stamp };
      return changed ? { kind: "changes", head, changed, entries } : { kind: "whole", head, entries };
    },
    { isolationLevel: "repeatable read", accessMode: "read only" },
  );
}

async function refreshState(db: OffchainDb, state: ListedPodsState): Promise<void> {
  const before = state.current;
  // a read-only snapshot is safe to read again: once more when its connection was stale
  const read = await readChanges(db, before).catch((error: unknown) => {
    if (!isStaleConnectionError(error)) throw error;
    return readChanges(db, before);
  });
  if (read.kind === "same") return;
  if (read.kind === "past 2^53") {
    state.current = undefined;
    state.gaveUp = { until: "another deployment", stamp: read.stamp };
    return;
  }
  if (read.kind === "changes" && before) {
    const found = new Set(read.entries.map((entry) => entry.id));
    for (const id of read.changed) if (!found.has(id)) before.table.remove(id);
    for (const entry of read.entries) before.table.upsert(entry);
    state.current = { ...read.head, table: before.table };
    told({ kind: "changes", pods: read.changed.length });
    return;
  }
  const table = new PodTable();
  for (const entry of read.entries) table.upsert(entry);
  state.current = { ...read.head, table };
  told({ kind: "whole" });
}

/**
 * Token ids whose entry may have changed since `before`, from one snapshot; undefined when they
 * cannot be known that way (a reorg took back `before`'s last change, a TRUNCATE, too many).
 */
async function changedPods(tx: Executor, before: Refreshed): Promise<number[] | undefined> {
  if (before.lastChange) {
    const seen = await tx.execute(
      sql`SELECT 1 FROM ${chain.eventLog} WHERE ${chain.eventLog.id} = ${before.lastChange.id}`,
    );
    if (seen.rows.length === 0) return undefined;
  }
  const fromBlock = before.lastChange?.blockNumber ?? 0n;
  const onChain = await tx.execute<{ pod_id: string }>(sql`
    SELECT DISTINCT ${chain.eventLog.data}->>'podId' AS pod_id FROM ${chain.eventLog}
     WHERE ${chain.eventLog.kind} IN (${sql.join(
       LIST_EVENT_KINDS.map((kind) => sql`${kind}`),
       sql`, `,
     )})
       AND ${chain.eventLog.blockNumber} >= ${fromBlock.toString()}
     LIMIT ${MAX_CHANGES + 1}`);
  const offChain = await tx.execute<{ token_id: string | null }>(sql`
    SELECT DISTINCT ${listChanges.tokenId}::text AS token_id FROM ${listChanges}
     WHERE ${listChanges.txid} >= pg_snapshot_xmin(${before.snapshot}::pg_snapshot)::text::bigint
       AND NOT pg_visible_in_snapshot(${listChanges.txid}::text::xid8, ${before.snapshot}::pg_snapshot)
     LIMIT ${MAX_CHANGES + 1}`);
  if (onChain.rows.length > MAX_CHANGES || offChain.rows.length > MAX_CHANGES) return undefined;
  const ids = new Set<number>();
  for (const row of onChain.rows) ids.add(Number(row.pod_id));
  for (const row of offChain.rows) {
    if (row.token_id === null) return undefined;
    ids.add(Number(row.token_id));
  }
  const list = [...ids];
  return list.every(Number.isSafeInteger) ? list : undefined;
}

/**
 * The pods as of `stamp` (refreshed first when it moved); undefined when the table cannot serve:
 * a transaction's executor, an indexer without `pod_list_change`, and while it is given up (values
 * past 2^53, a view missing mid-refresh; see the top of this file).
 */
async function podsAtStamp(db: Executor, stamp: string | undefined): Promise<ListedPods | undefined> {
  if (stamp === undefined || is(db, PgTransaction)) return undefined;
  let state = states.get(db);
  if (!state) states.set(db, (state = new ListedPodsState()));
  if (state.gaveUp) {
    if (stillGivenUp(state.gaveUp, stamp)) return undefined;
    state.gaveUp = undefined;
  }
  if (state.current?.stamp !== stamp) {
    try {
      await state.refresh(db as OffchainDb);
      // a refresh that had begun before this stamp was read may not show it: one more
      if (state.current?.stamp !== stamp && !state.gaveUp) await state.refresh(db as OffchainDb);
    } catch (error) {
      if (!isUndefinedTable(error)) throw error;
      state.gaveUp = { until: "another stamp", stamp };
    }
  }
  return state.gaveUp ? undefined : state.current;
}

/**
 * The list's stamp now (count-cache.ts) and the pods as of it. Without `pods` (see podsAtStamp)
 * callers count in SQL under `stamp`. Read what you need from `pods` before your next `await`:
 * a later refresh changes the table in place.
 */
export async function currentListing(
  db: Executor,
): Promise<{ stamp: string | undefined; pods: ListedPods | undefined }> {
  const stamp = await listStamp(db);
  const pods = await podsAtStamp(db, stamp);
  return { stamp: pods?.stamp ?? stamp, pods };
}

/** The filter of the list's query as the table takes it; undefined when a value is past 2^53. */
export function podFilterOf(subnetTokenId: bigint | undefined, epoch: bigint | undefined): PodFilter | undefined {
  const subnetId = subnetTokenId === undefined ? undefined : Number(subnetTokenId);
  const epochNumber = epoch === undefined ? undefined : Number(epoch);
  if (subnetId !== undefined && !Number.isSafeInteger(subnetId)) return undefined;
  if (epochNumber !== undefined && !Number.isSafeInteger(epochNumber)) return undefined;
  return { subnetId, epoch: epochNumber };
}
