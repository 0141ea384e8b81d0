/**
 * What the public pod list derives from the *set* of listed pods — its totals (overall, per
 * search, per datanet, per epoch) and the token id at which a deep page starts — kept per process
 * under a stamp of everything that can change that set or the columns it is filtered on:
 * - the indexer's `pod_list_change` marker (block hash and log index of the last mint, republish
 *   or invalidation; votes never touch it, so an indexed block of votes keeps the stamp),
 * - the newest indexed pod id (a cheap second guard for mints),
 * - the off-chain change counter (offchain.read_versions, bumped in every writing transaction:
 *   drafts, bans, archives, republished datanets).
 * Reading the stamp is three index lookups; a count or an OFFSET walk over 100k pods is a scan.
 */
import { sql } from "drizzle-orm";
import { chain } from "../../db/chain";
import { postgresErrorCode } from "../../db/errors";
import type { Executor } from "./subnets";

const UNDEFINED_TABLE = "42P01";

const MAX_ENTRIES = 10_000;
const values = new Map<string, Promise<unknown>>();
let lookupListener: ((hit: boolean) => void) | undefined;

/** Told of every lookup, hit or miss (the Platform API counts them in its metrics). */
export function onCountCacheLookup(listener: (hit: boolean) => void): void {
  lookupListener = listener;
}

/**
 * The stamp of the listed set now (see above); undefined while the indexer's views lack
 * `pod_list_change` (an API already deployed while the indexer still reindexes into the schema
 * that adds it): then nothing is cached.
 */
export async function listStamp(db: Executor): Promise<string | undefined> {
  try {
    const result = await db.execute<{ stamp: string | null }>(
      sql`SELECT coalesce((SELECT ${chain.podListChange.lastChange} FROM ${chain.podListChange} WHERE ${chain.podListChange.id} = 1), '')
        || ':' || coalesce((SELECT max(${chain.pod.id}) FROM ${chain.pod})::text, '')
        || ':' || coalesce((SELECT sum(version) FROM offchain.read_versions), 0)::text AS stamp`,
    );
    return result.rows[0]?.stamp ?? undefined;
  } catch (error) {
    if (postgresErrorCode(error) === UNDEFINED_TABLE) return undefined;
    throw error;
  }
}

/** The value named by `key` (a total, a page boundary) at `stamp`, computed once per stamp and process. */
export function cachedAtStamp<T>(stamp: string | undefined, key: string, compute: () => Promise<T>): Promise<T> {
  if (stamp === undefined) return compute();
  const cacheKey = `${stamp}\n${key}`;
  let value = values.get(cacheKey) as Promise<T> | undefined;
  lookupListener?.(value !== undefined);
  if (!value) {
    if (values.size >= MAX_ENTRIES) values.clear();
    value = compute();
    values.set(cacheKey, value);
    value.catch(() => values.delete(cacheKey));
  }
  return value;
}
