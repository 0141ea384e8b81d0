/**
 * The version of everything a public read can show: the indexer's checkpoint
 * (`<views>._ponder_checkpoint.latest_checkpoint`, advanced by Ponder in the transaction that
 * writes the indexed rows), the deployment behind the views (api/db/chain.ts: a reindex may
 * reach the same checkpoint with other rows) and the off-chain change counter
 * (`offchain.read_versions`, bumped by a statement trigger on every off-chain table but
 * `rate_limits`, in the writing transaction; see migration 0003). Any change of one of them
 * invalidates the response cache.
 *
 * Two ways to read it:
 * - `current()`, strict: answered by a probe that *started after the call* (probes are shared: at
 *   most one in flight per process, every caller that arrived before it started waits for it), so
 *   the request never sees an older version than the one committed when it arrived, on any
 *   replica. For requests that may have written (they carry a cookie, or `Cache-Control: no-cache`).
 * - `recent()`: the version of a probe that started at most `maxAgeMs` ago (default 0: then it is
 *   `current()`; the Platform API's READ_VERSION_MAX_AGE_MS),
 *   without waiting when there is one; a probe is started in the background once the last is
 *   half that old, so under steady traffic nobody waits and the database sees about
 *   2000 / maxAgeMs tiny queries a second per replica, whatever the request rate. A change
 *   committed by anyone shows within maxAgeMs on every replica.
 * `invalidate()` (an off-chain write answered by this process) makes the next `recent()` strict,
 * so a caller sees its own write on its next request to the replica that took it; on another
 * replica, within maxAgeMs (at once with a cookie).
 */
import type pg from "pg";
import { escapeIdentifier } from "pg";
import { viewsDeploymentSql } from "../db/chain";
import { coversFloor, POSITION_SQL, readAtLeast, sourceReached } from "../db/read-replicas";

export interface ReadVersion {
  /** The version committed when the call was made (undefined: unknown, e.g. indexer views missing; do not cache). */
  current(): Promise<string | undefined>;
  /** A version committed at most maxAgeMs before the call (a value when no probe is needed). */
  recent(): string | undefined | Promise<string | undefined>;
  /** Something was written through this process: the next `recent()` waits for a fresh probe. */
  invalidate(): void;
}

/** A probe's answer and the position its snapshot was at most at (undefined: unknown). */
interface Probed {
  value: string | undefined;
  position: string | undefined;
}

export interface ReadVersionOptions {
  /** Oldest probe `recent()` may answer with (default 0: `recent()` is `current()`). */
  maxAgeMs?: number;
  now?: () => number;
}

export function createReadVersion(pool: pg.Pool, viewsSchema: string, options: ReadVersionOptions = {}): ReadVersion {
  const maxAgeMs = options.maxAgeMs ?? 0;
  const now = options.now ?? (() => performance.now());
  const schema = escapeIdentifier(viewsSchema);
  const sql =
    `SELECT (SELECT max(latest_checkpoint)::text FROM ${schema}._ponder_checkpoint) AS checkpoint, ` +
    `${viewsDeploymentSql(viewsSchema)} AS deployment, ` +
    `(SELECT sum(version)::text FROM offchain.read_versions) AS offchain, ` +
    `${POSITION_SQL} AS position`;
  let inFlight: Promise<Probed> | undefined;
  let next: Promise<Probed> | undefined;
  /** The newest answered probe and when it started (-Infinity: none, or invalidated). */
  let last: Probed & { startedAt: number } = { value: undefined, position: undefined, startedAt: -Infinity };
  /** When this process last wrote: probes that started earlier may not have seen it. */
  let invalidatedAt = -Infinity;

  const probe = async (): Promise<Probed> => {
    try {
      const { rows } = await pool.query<{
        checkpoint: string | null;
        deployment: string | null;
        offchain: string | null;
        position: string | null;
      }>(sql);
      const row = rows[0];
      const position = row?.position ?? undefined;
      sourceReached(position);
      if (!row?.checkpoint) return { value: undefined, position };
      return { value: `${row.checkpoint}:${row.deployment ?? ""}:${row.offchain ?? "0"}`, position };
    } catch {
      return { value: undefined, position: undefined };
    }
  };

  const start = (): Promise<Probed> => {
    const startedAt = now();
    const p = probe().then((probed) => {
      // a probe that started before an invalidation (or before a newer probe) does not become `last`
      if (startedAt > invalidatedAt && startedAt >= last.startedAt) last = { ...probed, startedAt };
      return probed;
    });
    const settled = p.finally(() => {
      if (inFlight === settled) inFlight = undefined;
    });
    inFlight = settled;
    return settled;
  };

  const shared = (): Promise<Probed> => {
    if (!inFlight) return start();
    // a probe is running but may have started before this call: wait for the next one
    next ??= inFlight.then(() => {
      next = undefined;
      return inFlight ?? start();
    });
    return next;
  };

  /** The value for this request: its later reads see at least the version's position. */
  const handOut = (probed: Probed): string | undefined => {
    readAtLeast(probed.position);
    return probed.value;
  };

  const current = async (): Promise<string | undefined> => {
    const probed = await shared();
    // the shared probe ran on a replica behind this caller's own write: one probe of its own,
    // routed to a source that has replayed the write
    return handOut(coversFloor(probed.position) ? probed : await probe());
  };

  return {
    current,
    recent() {
      const age = now() - last.startedAt;
      if (age < maxAgeMs && coversFloor(last.position)) {
        if (age >= maxAgeMs / 2 && !inFlight) void start();
        return handOut(last);
      }
      return current();
    },
    invalidate() {
      last = { value: undefined, position: undefined, startedAt: -Infinity };
      // a probe in flight may have started before the write committed: `recent()` must not use it
      invalidatedAt = now();
    },
  };
}
