/**
 * What the public pod list derives from the *set* of listed pods — its totals (overall, per
 * search, per datanet, per epoch) and the token id at which a deep page starts — kept per process
 * under a stamp of everything that can change that set or the columns it is filtered on:
 * - the newest indexed event of each LIST_EVENT_KINDS (mint, republish, invalidation) in the
 *   indexer's `event_log`; votes are not among them, so an indexed block of votes keeps the stamp,
 * - the newest indexed pod id (a cheap second guard for mints),
 * - the deployment behind the views (api/db/chain.ts): a reindex may end at the same marker
 *   with pods computed otherwise,
 * - the list's off-chain change counter (offchain.list_versions, migration 0008), bumped only by
 *   writes to the pod drafts' listing and searched columns (a mint's token id, a ban, an archive,
 *   name and description) — not by comments, feedback, reported votes or users, which bump only
 *   the response cache's offchain.read_versions. Every other column the list's totals, boundaries
 *   and search ids read is indexed chain state (the two guards above); the datanet and creator
 *   columns of a page are joined per request, not cached here.
 * Reading the stamp is five index lookups; a count or an OFFSET walk over 100k pods is a scan
 * (~50-200 ms at 100k pods, bench/README.md), done once per stamp and process.
 */
import { sql } from "drizzle-orm";
import { chain, viewsDeploymentSql } from "../../db/chain";
import { isUndefinedTable } from "../../db/errors";
import { createVersionedValues } from "../../lib/versioned-values";
import type { Executor } from "./subnets";

/** At most 10,000 values, and 32 MB of the lists of token ids among them. */
const values = createVersionedValues<unknown>({
  maxEntries: 10_000,
  maxBytes: 32 * 2 ** 20,
  sizeOf: (value) => (ArrayBuffer.isView(value) ? value.byteLength : 0),
});
const watchers = new Set<(key: string, hit: boolean) => void>();
let stopMetricsWatcher: (() => void) | undefined;

/** Told of every lookup with its key until the returned function is called (tests: which values were computed). */
export function watchCountCache(watcher: (key: string, hit: boolean) => void): () => void {
  watchers.add(watcher);
  return () => watchers.delete(watcher);
}

/** Told of every lookup, hit or miss, instead of the previous listener (the Platform API counts them in its metrics). */
export function onCountCacheLookup(listener: (hit: boolean) => void): void {
  stopMetricsWatcher?.();
  stopMetricsWatcher = watchCountCache((_key, hit) => listener(hit));
}

/**
 * The indexed events that change which pods exist or what the list filters on (a mint; a
 * republish: datanet and validity; an invalidation). Votes are not among them. A handler that
 * records a new such event in `event_log` must add its kind here, or the totals go stale.
 */
export const LIST_EVENT_KINDS = ["pod_minted", "pod_republished", "pod_invalidated"] as const;

/** The newest event of each kind (an index lookup each: event_log_kind_idx); its id names its block hash, so a reorg changes it. */
const lastListEvents = sql.join(
  LIST_EVENT_KINDS.map(
    (kind) =>
      sql`coalesce((SELECT ${chain.eventLog.id} FROM ${chain.eventLog} WHERE ${chain.eventLog.kind} = ${kind} ORDER BY ${chain.eventLog.blockNumber} DESC LIMIT 1), '')`,
  ),
  sql` || ':' || `,
);

const STAMP_SQL = sql`${lastListEvents}
  || ':' || coalesce((SELECT max(${chain.pod.id}) FROM ${chain.pod})::text, '')
  || ':' || coalesce(${sql.raw(viewsDeploymentSql())}, '')
  || ':' || coalesce((SELECT sum(version) FROM offchain.list_versions), 0)::text`;

/** The stamp of the listed set now (see above); undefined while the indexer's views lack a table it reads: then nothing is cached. */
export async function listStamp(db: Executor): Promise<string | undefined> {
  try {
    const result = await db.execute<{ stamp: string | null }>(sql`SELECT ${STAMP_SQL} AS stamp`);
    return result.rows[0]?.stamp ?? undefined;
  } catch (error) {
    if (isUndefinedTable(error)) return undefined;
    throw error;
  }
}

/**
 * The value named by `key` (a total, a page boundary, a search's token ids) at `stamp`, computed
 * once per stamp and process (api/lib/versioned-values.ts); without a stamp, computed each time.
 */
export function cachedAtStamp<T>(stamp: string | undefined, key: string, compute: () => Promise<T>): Promise<T> {
  if (stamp === undefined) return compute();
  if (watchers.size > 0) {
    // (peeks without computing: a lookup of the same key and stamp right after is a hit)
    let hit = true;
    const value = values.get(key, stamp, () => {
      hit = false;
      return compute();
    });
    for (const watcher of watchers) watcher(key, hit);
    return value as Promise<T>;
  }
  return values.get(key, stamp, compute) as Promise<T>;
}
