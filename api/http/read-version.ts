/**
 * The version of everything a public read can show: the indexer's checkpoint
 * (`<views>._ponder_checkpoint.latest_checkpoint`, advanced by Ponder in the transaction that
 * writes the indexed rows) and the off-chain change counter (`offchain.read_versions`, bumped by a
 * statement trigger on every off-chain table but `rate_limits`, in the writing transaction; see
 * migration 0003). Any change of either invalidates the response cache.
 *
 * Strict freshness at a small price: `current()` answers with a probe that *started after the
 * call* (probes are shared: at most one in flight per process, every caller that arrived before it
 * started waits for it). So a request never sees an older version than the one committed when it
 * arrived, on any replica, while the database sees one tiny query per probe round trip, not per
 * request.
 */
import type pg from "pg";

export interface ReadVersion {
  /** The version committed when the call was made (undefined: unknown, e.g. indexer views missing; do not cache). */
  current(): Promise<string | undefined>;
}

export function createReadVersion(pool: pg.Pool, viewsSchema: string): ReadVersion {
  const schema = `"${viewsSchema.replace(/"/g, '""')}"`;
  const sql =
    `SELECT (SELECT max(latest_checkpoint)::text FROM ${schema}._ponder_checkpoint) AS checkpoint, ` +
    `(SELECT sum(version)::text FROM offchain.read_versions) AS offchain`;
  let inFlight: Promise<string | undefined> | undefined;
  let next: Promise<string | undefined> | undefined;

  const probe = async (): Promise<string | undefined> => {
    try {
      const { rows } = await pool.query<{ checkpoint: string | null; offchain: string | null }>(sql);
      const row = rows[0];
      if (!row?.checkpoint) return undefined;
      return `${row.checkpoint}:${row.offchain ?? "0"}`;
    } catch {
      return undefined;
    }
  };

  const start = (): Promise<string | undefined> => {
    const p = probe().finally(() => {
      if (inFlight === p) inFlight = undefined;
    });
    inFlight = p;
    return p;
  };

  return {
    current() {
      if (!inFlight) return start();
      // a probe is running but may have started before this call: wait for the next one
      next ??= inFlight.then(() => {
        next = undefined;
        return inFlight ?? start();
      });
      return next;
    },
  };
}
