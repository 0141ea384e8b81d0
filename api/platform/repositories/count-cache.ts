/**
 * What the public pod list derives from the *set* of listed pods — its totals (overall, per
 * search, per datanet, per epoch) and the token id at which a deep page starts — kept per process
 * under a stamp of everything that can change that set or the columns it is filtered on:
 * - the indexer's `pod_list_change` marker (block hash and log index of the last mint, republish
 *   or invalidation; votes never touch it, so an indexed block of votes keeps the stamp),
 * - the newest indexed pod id (a cheap second guard for mints),
 * - the deployment behind the views (api/db/chain.ts): a reindex may end at the same marker
 *   with pods computed otherwise,
 * - the list's off-chain change counter (offchain.list_versions, migration 0008), bumped only by
 *   writes to the pod drafts' listing and searched columns (a mint's token id, a ban, an archive,
 *   name and description) — not by comments, feedback, reported votes or users, which bump only
 *   the response cache's offchain.read_versions. Every other column the list's totals, boundaries
 *   and search ids read is indexed chain state (the two guards above); the datanet and creator
 *   columns of a page are joined per request, not cached here.
 * Reading the stamp is three index lookups; a count or an OFFSET walk over 100k pods is a scan.
 */
import { sql } from "drizzle-orm";
import { chain, viewsDeploymentSql } from "../../db/chain";
import { isUndefinedTable } from "../../db/errors";
import type { Executor } from "./subnets";

const MAX_ENTRIES = 10_000;
const values = new Map<string, Promise<unknown>>();
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

/** The stamp as an SQL expression (listed-pods.ts reads it in its refresh's snapshot). */
export const listStampSql =
  () => sql`coalesce((SELECT ${chain.podListChange.lastChange} FROM ${chain.podListChange} WHERE ${chain.podListChange.id} = 1), '')
  || ':' || coalesce((SELECT max(${chain.pod.id}) FROM ${chain.pod})::text, '')
  || ':' || coalesce(${sql.raw(viewsDeploymentSql())}, '')
  || ':' || coalesce((SELECT sum(version) FROM offchain.list_versions), 0)::text`;

/** The deployment field of a stamp of listStampSql: the next-to-last (the first may hold a colon). */
export const stampDeployment = (stamp: string): string | undefined => stamp.split(":").at(-2);

/**
 * The stamp of the listed set now (see above); undefined while the indexer's views lack
 * `pod_list_change` (an API already deployed while the indexer still reindexes into the schema
 * that adds it): then nothing is cached.
 */
export async function listStamp(db: Executor): Promise<string | undefined> {
  try {
    const result = await db.execute<{ stamp: string | null }>(sql`SELECT ${listStampSql()} AS stamp`);
    return result.rows[0]?.stamp ?? undefined;
  } catch (error) {
    if (isUndefinedTable(error)) return undefined;
    throw error;
  }
}

/** Most bytes of the values that say their size (lists of token ids), oldest dropped first. */
const MAX_BYTES = 32 * 2 ** 20;
const sizes = new Map<string, number>();
let bytes = 0;

function drop(cacheKey: string): void {
  values.delete(cacheKey);
  bytes -= sizes.get(cacheKey) ?? 0;
  sizes.delete(cacheKey);
}

/**
 * The value named by `key` (a total, a page boundary, a search's token ids) at `stamp`, computed
 * once per stamp and process. `sizeOf` gives a value's size in bytes: such values are held
 * within MAX_BYTES together (oldest dropped first), the others by number (MAX_ENTRIES).
 */
export function cachedAtStamp<T>(
  stamp: string | undefined,
  key: string,
  compute: () => Promise<T>,
  sizeOf?: (value: T) => number,
): Promise<T> {
  if (stamp === undefined) return compute();
  const cacheKey = `${stamp}\n${key}`;
  let value = values.get(cacheKey) as Promise<T> | undefined;
  for (const watcher of watchers) watcher(key, value !== undefined);
  if (!value) {
    if (values.size >= MAX_ENTRIES) {
      values.clear();
      sizes.clear();
      bytes = 0;
    }
    const computed = compute();
    value = computed;
    values.set(cacheKey, computed);
    computed.then(
      (result) => {
        if (!sizeOf || values.get(cacheKey) !== computed) return;
        const size = sizeOf(result);
        sizes.set(cacheKey, size);
        bytes += size;
        for (const k of sizes.keys()) {
          if (bytes <= MAX_BYTES) break;
          drop(k);
        }
      },
      () => {
        if (values.get(cacheKey) === computed) drop(cacheKey);
      },
    );
  }
  return value;
}
