/**
 * Off-chain records follow the canonical chain. Every `verified_transactions` row is tied to the
 * block its transaction was mined in; until that block is the finality depth deep, each pass
 * checks that it is still canonical. When the chain no longer has the transaction in that block
 * (a reorg), the canonical chain decides:
 * - no receipt (dropped) or a failed one → the record is undone (its kind's `undo`, api/ledger) and the hash freed;
 * - the identical transaction mined again (same hash, successful receipt in another block) → the
 *   kind's verifier re-runs the check the route ran, against the new receipt: when the record's
 *   facts still hold, the row moves to the new block ("reconfirmed"); when they changed (another
 *   token id, another datanet, ...) the record is undone.
 * A row not yet tied to a block is re-checked the same way before it is tied, so a reorg between
 * the route's check and the first pass (or while the service was down) is caught too.
 * Every undo and reconfirmation is logged, kept in `offchain.reorged_records` and counted
 * (`reconcilerStats()`).
 *
 * Replicas and restarts: every API process runs a pass every `intervalMs`; the state is in
 * PostgreSQL (rows stay unchecked-final until proven final), and an undo or a move is guarded by
 * the block hash the pass saw, so exactly one replica acts on a row, and a reorg that happened
 * while the service was down is acted on by the first pass after the start.
 *
 * RPC: one pass asks for the head, the distinct blocks of its rows and the receipts of the
 * suspicious rows with at most `concurrency` requests in flight (a client with a JSON-RPC batch
 * transport sends them as batches), never one sequential round trip per row.
 */
import { and, asc, eq, inArray, sql, type SQL } from "drizzle-orm";
import pLimit from "p-limit";
import type { Logger } from "pino";
import {
  BlockNotFoundError,
  TransactionNotFoundError,
  TransactionReceiptNotFoundError,
  type Hash,
  type PublicClient,
  type TransactionReceipt,
} from "viem";
import type { OffchainDb } from "../db/client";
import { reorgedRecords, verifiedTransactions } from "../db/offchain";
import type { RecordVerdict } from "../ledger/kind";
import type { RecordVerifiers } from "../ledger/ledger";
import { recordKindNamed } from "../ledger/registry";

/** Base's finality depth, as Ponder uses it: deeper blocks never change. */
export const FINALITY_DEPTH = 30n;
const BATCH = 500;
const DEFAULT_CONCURRENCY = 16;
/** A kind no declaration names settles with the last stage. */
const LAST_STAGE = 2;

type Row = typeof verifiedTransactions.$inferSelect;

export type { RecordVerdict } from "../ledger/kind";
export type { RecordVerifier, RecordVerifiers } from "../ledger/ledger";

export type UndoneRecord = { txHash: string; kind: string; recordId: string; reason: string; detail?: string };
export type ReconfirmedRecord = {
  txHash: string;
  kind: string;
  recordId: string;
  blockNumber: bigint | null;
  newBlockNumber: bigint;
  newBlockHash: string;
};
export type ReconcileResult = {
  checked: number;
  finalized: number;
  /** Rows tied to their block for the first time (after their facts were checked again). */
  pinned: number;
  undone: UndoneRecord[];
  reconfirmed: ReconfirmedRecord[];
  /** Rows left for the next pass (their verifier could not ask the chain). */
  deferred: number;
};

export type ReconcileOptions = { verifiers?: RecordVerifiers; concurrency?: number; logger?: Logger };

export type ReorgReconciler = { start(): void; stop(): Promise<void>; runOnce(): Promise<ReconcileResult> };

// ---- counters for operators (a metrics module reads them) ----

export type ReconcilerStats = {
  passes: number;
  failedPasses: number;
  checked: number;
  finalized: number;
  pinned: number;
  undone: number;
  reconfirmed: number;
  deferred: number;
  byKind: Record<string, { undone: number; reconfirmed: number }>;
  lastPassAt: Date | null;
};

const stats: ReconcilerStats = {
  passes: 0,
  failedPasses: 0,
  checked: 0,
  finalized: 0,
  pinned: 0,
  undone: 0,
  reconfirmed: 0,
  deferred: 0,
  byKind: {},
  lastPassAt: null,
};

/** Totals of this process's passes since it started (the durable history is `offchain.reorged_records`). */
export function reconcilerStats(): ReconcilerStats {
  return {
    ...stats,
    byKind: Object.fromEntries(Object.entries(stats.byKind).map(([kind, counts]) => [kind, { ...counts }])),
  };
}

function count(result: ReconcileResult): void {
  stats.passes += 1;
  stats.checked += result.checked;
  stats.finalized += result.finalized;
  stats.pinned += result.pinned;
  stats.deferred += result.deferred;
  stats.undone += result.undone.length;
  stats.reconfirmed += result.reconfirmed.length;
  stats.lastPassAt = new Date();
  for (const { kind } of result.undone) (stats.byKind[kind] ??= { undone: 0, reconfirmed: 0 }).undone += 1;
  for (const { kind } of result.reconfirmed) (stats.byKind[kind] ??= { undone: 0, reconfirmed: 0 }).reconfirmed += 1;
}

// ---- chain look-ups ----

/** Receipt of `hash`, or null when the canonical chain does not have it. */
async function receiptOf(client: PublicClient, hash: string): Promise<TransactionReceipt | null> {
  try {
    return await client.getTransactionReceipt({ hash: hash as Hash });
  } catch (error) {
    if (error instanceof TransactionReceiptNotFoundError) return null;
    throw error;
  }
}

/** Hash of the canonical block `blockNumber`, or null when the chain is not that long (any other failure throws). */
async function canonicalHashOf(client: PublicClient, blockNumber: bigint): Promise<string | null> {
  try {
    return (await client.getBlock({ blockNumber })).hash;
  } catch (error) {
    if (error instanceof BlockNotFoundError) return null;
    throw error;
  }
}

/** True when the node still holds `hash` unmined (in its pool); false when it does not know it. */
async function isPending(client: PublicClient, hash: string): Promise<boolean> {
  try {
    return (await client.getTransaction({ hash: hash as Hash })).blockHash === null;
  } catch (error) {
    if (error instanceof TransactionNotFoundError) return false;
    throw error;
  }
}

// ---- one pass ----

export async function reconcileOnce(
  db: OffchainDb,
  client: PublicClient,
  options: ReconcileOptions = {},
): Promise<ReconcileResult> {
  const concurrency = options.concurrency ?? DEFAULT_CONCURRENCY;
  const result: ReconcileResult = { checked: 0, finalized: 0, pinned: 0, undone: [], reconfirmed: [], deferred: 0 };
  const rows = await db
    .select()
    .from(verifiedTransactions)
    .where(eq(verifiedTransactions.final, false))
    .orderBy(asc(verifiedTransactions.createdAt))
    .limit(BATCH);
  if (rows.length === 0) return result;
  result.checked = rows.length;

  const head = await client.getBlockNumber({ cacheTime: 0 });
  const blockNumbers = [...new Set(rows.flatMap((row) => (row.blockNumber === null ? [] : [row.blockNumber])))];
  const canonical = new Map(
    await pLimit(concurrency).map(blockNumbers, async (n) => [n, await canonicalHashOf(client, n)] as const),
  );

  const finalized: string[] = [];
  const suspects: Row[] = [];
  for (const row of rows) {
    if (row.blockHash !== null && row.blockNumber !== null && canonical.get(row.blockNumber) === row.blockHash) {
      if (head - row.blockNumber >= FINALITY_DEPTH) finalized.push(row.txHash);
    } else {
      suspects.push(row);
    }
  }
  if (finalized.length > 0) {
    await db.update(verifiedTransactions).set({ final: true }).where(inArray(verifiedTransactions.txHash, finalized));
    result.finalized = finalized.length;
  }
  if (suspects.length === 0) return result;

  const receipts = new Map(
    await pLimit(concurrency).map(suspects, async (row) => [row.txHash, await receiptOf(client, row.txHash)] as const),
  );
  // records others rest on go first (a pod's datanet, a republish's pod): the kinds' stages
  const rank = (kind: string) => recordKindNamed(kind)?.stage ?? LAST_STAGE;
  const groups = [...new Set(suspects.map((row) => rank(row.kind)))].sort((a, b) => a - b);
  for (const group of groups) {
    await pLimit(concurrency).map(
      suspects.filter((row) => rank(row.kind) === group),
      (row) => settle(db, client, row, receipts.get(row.txHash) ?? null, options, result),
    );
  }
  return result;
}

/** Decides one row whose block is not (or not yet known to be) canonical. */
async function settle(
  db: OffchainDb,
  client: PublicClient,
  row: Row,
  receipt: TransactionReceipt | null,
  options: ReconcileOptions,
  result: ReconcileResult,
): Promise<void> {
  const undoAs = async (reason: string, detail?: string) => {
    if (await undo(db, row, reason)) result.undone.push({ ...pick(row), reason, ...(detail ? { detail } : {}) });
  };
  // a row never tied to a block may be a transaction this server sent that is still waiting to be
  // mined (the chat server's mint recorded before its receipt came): it waits, it is not dropped
  if (!receipt && row.blockHash === null && (await isPending(client, row.txHash))) {
    result.deferred += 1;
    return;
  }
  if (!receipt) return undoAs("dropped");
  if (receipt.status !== "success") return undoAs("reverted");
  const moved = row.blockHash !== null;
  const verifier = options.verifiers?.[row.kind];
  let verdict: RecordVerdict;
  if (verifier) {
    try {
      verdict = await verifier({ txHash: row.txHash as Hash, recordId: row.recordId, from: receipt.from });
    } catch (error) {
      result.deferred += 1;
      options.logger?.warn(
        { err: error, txHash: row.txHash, kind: row.kind },
        "reorg: could not check a record again; next pass retries",
      );
      return;
    }
  } else {
    // no check known for this kind: a first sighting is trusted, a move cannot be judged
    verdict = moved ? { holds: false, reason: "mined again elsewhere; no check known for this kind" } : { holds: true };
  }
  if (!verdict.holds) return undoAs(moved && !verifier ? "moved" : "changed", verdict.reason);
  if (!(await move(db, row, receipt, verdict.updates ?? [], moved))) return;
  if (!moved) {
    result.pinned += 1;
    return;
  }
  result.reconfirmed.push({
    ...pick(row),
    blockNumber: row.blockNumber,
    newBlockNumber: receipt.blockNumber,
    newBlockHash: receipt.blockHash,
  });
}

const pick = (row: Row) => ({ txHash: row.txHash, kind: row.kind, recordId: row.recordId });

/** The guard of every write: the row still has the block hash this pass saw (else another replica acted). */
const sameBlock = (row: Row) =>
  and(
    eq(verifiedTransactions.txHash, row.txHash),
    row.blockHash === null
      ? sql`${verifiedTransactions.blockHash} IS NULL`
      : eq(verifiedTransactions.blockHash, row.blockHash),
  );

/** Ties the row to the block its transaction is in now; a move (reconfirmation) is also kept in `reorged_records`. */
async function move(
  db: OffchainDb,
  row: Row,
  receipt: TransactionReceipt,
  updates: SQL[],
  reconfirmed: boolean,
): Promise<boolean> {
  return db.transaction(async (tx) => {
    const updated = await tx
      .update(verifiedTransactions)
      .set({ blockNumber: receipt.blockNumber, blockHash: receipt.blockHash })
      .where(sameBlock(row))
      .returning({ txHash: verifiedTransactions.txHash });
    if (updated.length === 0) return false;
    for (const statement of updates) await tx.execute(statement);
    if (reconfirmed) {
      await tx.insert(reorgedRecords).values({
        ...pick(row),
        blockNumber: row.blockNumber,
        blockHash: row.blockHash,
        reason: "re-mined",
        outcome: "reconfirmed",
        newBlockNumber: receipt.blockNumber,
        newBlockHash: receipt.blockHash,
      });
    }
    return true;
  });
}

/** Undoes `row`'s record unless another replica already acted on it (the guarded delete decides). */
async function undo(db: OffchainDb, row: Row, reason: string): Promise<boolean> {
  return db.transaction(async (tx) => {
    const deleted = await tx
      .delete(verifiedTransactions)
      .where(sameBlock(row))
      .returning({ txHash: verifiedTransactions.txHash });
    if (deleted.length === 0) return false;
    for (const statement of recordKindNamed(row.kind)?.undo(row.txHash) ?? []) await tx.execute(statement);
    await tx.insert(reorgedRecords).values({
      ...pick(row),
      blockNumber: row.blockNumber,
      blockHash: row.blockHash,
      reason,
      outcome: "undone",
    });
    return true;
  });
}

/** Records undone or reconfirmed after a reorg, newest first (the operator's listing). */
export function listReorgedRecords(db: OffchainDb, limit = 100) {
  return db.select().from(reorgedRecords).orderBy(sql`${reorgedRecords.id} DESC`).limit(limit);
}

export function createReorgReconciler(options: {
  db: OffchainDb;
  client: PublicClient;
  logger: Logger;
  verifiers?: RecordVerifiers;
  intervalMs?: number;
  concurrency?: number;
}): ReorgReconciler {
  const intervalMs = options.intervalMs ?? 2_000;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> | undefined;

  const runOnce = async () => {
    let result: ReconcileResult;
    try {
      result = await reconcileOnce(options.db, options.client, {
        verifiers: options.verifiers,
        concurrency: options.concurrency,
        logger: options.logger,
      });
    } catch (error) {
      stats.failedPasses += 1;
      throw error;
    }
    count(result);
    for (const record of result.undone) {
      options.logger.warn(record, "reorg: record undone, its transaction left the canonical chain");
    }
    for (const record of result.reconfirmed) {
      options.logger.warn(
        record,
        "reorg: record reconfirmed, its identical transaction was mined again with the same facts",
      );
    }
    return result;
  };
  const tick = () => {
    running = runOnce()
      .catch((error: unknown) => options.logger.warn({ err: error }, "reorg reconciler pass failed; retrying"))
      .finally(() => {
        running = undefined;
        if (timer) timer = setTimeout(tick, intervalMs).unref();
      });
  };
  return {
    runOnce,
    start() {
      if (timer) return;
      timer = setTimeout(tick, 0).unref();
    },
    async stop() {
      if (timer) clearTimeout(timer);
      timer = undefined;
      await running;
    },
  };
}
