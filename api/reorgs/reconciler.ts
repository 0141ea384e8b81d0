/**
 * Off-chain records follow the canonical chain. Every `verified_transactions` row is tied to the
 * block its transaction was mined in; until that block is the finality depth deep, each pass
 * checks that it is still canonical. When the chain dropped or moved the transaction (a reorg),
 * the record behind it is undone (./undo.ts), the hash freed, and the undo logged and kept in
 * `offchain.reorged_records`.
 *
 * Replicas and restarts: every API process runs a pass every `intervalMs`; the state is in
 * PostgreSQL (rows stay unchecked-final until proven final), and an undo deletes the row with
 * its block hash as a guard, so exactly one replica undoes a record and a pass missed while
 * the service was down is done by the next one.
 */
import { and, asc, eq, inArray, sql } from "drizzle-orm";
import type { Logger } from "pino";
import type { Hash, PublicClient } from "viem";
import type { OffchainDb } from "../db/client";
import { reorgedRecords, verifiedTransactions } from "../db/offchain";
import { UNDO_BY_KIND } from "./undo";

/** Base's finality depth, as Ponder uses it: deeper blocks never change. */
export const FINALITY_DEPTH = 30n;
const BATCH = 500;

type Row = typeof verifiedTransactions.$inferSelect;
export type ReconcileResult = { checked: number; finalized: number; undone: { txHash: string; kind: string; recordId: string; reason: string }[] };

export type ReorgReconciler = { start(): void; stop(): Promise<void>; runOnce(): Promise<ReconcileResult> };

/** Receipt of `hash`, or null when the canonical chain does not have it. */
async function receiptOf(client: PublicClient, hash: string) {
  try {
    return await client.getTransactionReceipt({ hash: hash as Hash });
  } catch (error) {
    if ((error as { name?: string }).name === "TransactionReceiptNotFoundError") return null;
    throw error;
  }
}

export async function reconcileOnce(db: OffchainDb, client: PublicClient): Promise<ReconcileResult> {
  const result: ReconcileResult = { checked: 0, finalized: 0, undone: [] };
  const rows = await db
    .select()
    .from(verifiedTransactions)
    .where(eq(verifiedTransactions.final, false))
    .orderBy(asc(verifiedTransactions.createdAt))
    .limit(BATCH);
  if (rows.length === 0) return result;
  const head = await client.getBlockNumber({ cacheTime: 0 });
  const canonical = new Map<bigint, string>();
  const canonicalHash = async (blockNumber: bigint) => {
    if (!canonical.has(blockNumber)) {
      const block = await client.getBlock({ blockNumber }).catch(() => null);
      canonical.set(blockNumber, block?.hash ?? "");
    }
    return canonical.get(blockNumber)!;
  };

  const finalized: string[] = [];
  for (const row of rows) {
    result.checked += 1;
    if (row.blockHash === null || row.blockNumber === null) {
      const receipt = await receiptOf(client, row.txHash);
      if (!receipt) {
        if (await undo(db, row, "dropped")) result.undone.push({ ...pick(row), reason: "dropped" });
        continue;
      }
      await db
        .update(verifiedTransactions)
        .set({ blockNumber: receipt.blockNumber, blockHash: receipt.blockHash })
        .where(and(eq(verifiedTransactions.txHash, row.txHash), sql`${verifiedTransactions.blockHash} IS NULL`));
      row.blockNumber = receipt.blockNumber;
      row.blockHash = receipt.blockHash;
    }
    if ((await canonicalHash(row.blockNumber)) === row.blockHash) {
      if (head - row.blockNumber >= FINALITY_DEPTH) finalized.push(row.txHash);
      continue;
    }
    // its block left the canonical chain: dropped, or mined again elsewhere (its effects may differ)
    const receipt = await receiptOf(client, row.txHash);
    const reason = receipt ? "moved" : "dropped";
    if (await undo(db, row, reason)) result.undone.push({ ...pick(row), reason });
  }
  if (finalized.length > 0) {
    await db.update(verifiedTransactions).set({ final: true }).where(inArray(verifiedTransactions.txHash, finalized));
    result.finalized = finalized.length;
  }
  return result;
}

const pick = (row: Row) => ({ txHash: row.txHash, kind: row.kind, recordId: row.recordId });

/** Undoes `row`'s record unless another replica already did (the guarded delete decides). */
async function undo(db: OffchainDb, row: Row, reason: string): Promise<boolean> {
  return db.transaction(async (tx) => {
    const guard = row.blockHash === null ? sql`${verifiedTransactions.blockHash} IS NULL` : eq(verifiedTransactions.blockHash, row.blockHash);
    const deleted = await tx
      .delete(verifiedTransactions)
      .where(and(eq(verifiedTransactions.txHash, row.txHash), guard))
      .returning({ txHash: verifiedTransactions.txHash });
    if (deleted.length === 0) return false;
    for (const statement of UNDO_BY_KIND[row.kind]?.(row.txHash) ?? []) await tx.execute(statement);
    await tx.insert(reorgedRecords).values({
      txHash: row.txHash,
      kind: row.kind,
      recordId: row.recordId,
      blockNumber: row.blockNumber,
      blockHash: row.blockHash,
      reason,
    });
    return true;
  });
}

/** Records undone after a reorg, newest first (the operator's listing). */
export function listReorgedRecords(db: OffchainDb, limit = 100) {
  return db.select().from(reorgedRecords).orderBy(sql`${reorgedRecords.id} DESC`).limit(limit);
}

export function createReorgReconciler(options: {
  db: OffchainDb;
  client: PublicClient;
  logger: Logger;
  intervalMs?: number;
}): ReorgReconciler {
  const intervalMs = options.intervalMs ?? 2_000;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> | undefined;

  const runOnce = async () => {
    const result = await reconcileOnce(options.db, options.client);
    for (const record of result.undone) {
      options.logger.warn(record, "reorg: record undone, its transaction left the canonical chain");
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
