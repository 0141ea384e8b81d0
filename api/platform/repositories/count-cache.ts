/**
 * Totals of the public lists that only change when pods are minted (or removed by a reorg) or
 * off-chain rows change: kept per process under a stamp of both — the newest indexed pod id
 * (ids only grow; a reorg that drops pods drops the newest) and the off-chain change counter
 * (offchain.read_versions, bumped in every writing transaction). Reading the stamp is two index
 * lookups; a count over 100k pods is a scan. Filters whose result also moves with republishes or
 * invalidations (datanet, epoch) must not use it.
 */
import { sql } from "drizzle-orm";
import { chain } from "../../db/chain";
import type { Executor } from "./subnets";

const MAX_ENTRIES = 1_000;
const totals = new Map<string, Promise<number>>();
let lookupListener: ((hit: boolean) => void) | undefined;

/** Told of every lookup, hit or miss (the Platform API counts them in its metrics). */
export function onCountCacheLookup(listener: (hit: boolean) => void): void {
  lookupListener = listener;
}

async function stamp(db: Executor): Promise<string> {
  const result = await db.execute<{ stamp: string | null }>(
    sql`SELECT (SELECT max(${chain.pod.id}) FROM ${chain.pod})::text || ':' || coalesce((SELECT sum(version) FROM offchain.read_versions), 0)::text AS stamp`,
  );
  return result.rows[0]?.stamp ?? "";
}

/** `count()` of the list named by `key`, computed once per stamp. */
export async function cachedTotal(db: Executor, key: string, count: () => Promise<number>): Promise<number> {
  const cacheKey = `${await stamp(db)}\n${key}`;
  let total = totals.get(cacheKey);
  lookupListener?.(total !== undefined);
  if (!total) {
    if (totals.size >= MAX_ENTRIES) totals.clear();
    total = count();
    totals.set(cacheKey, total);
    total.catch(() => totals.delete(cacheKey));
  }
  return total;
}
