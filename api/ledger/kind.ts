/**
 * What declaring a record kind takes (the declarations are in ./kinds/, listed by ./registry.ts):
 * a confirmed transaction backs exactly one off-chain record; it is checked against its event when
 * recorded (`verify`, through `record()`), checked again until final (`recheck`, by the reorg
 * reconciler) and undone when its transaction leaves the canonical chain (`undo`).
 */
import type { SQL } from "drizzle-orm";
import type { Address, Hash, TransactionReceipt } from "viem";
import type { OffchainDb } from "../db/client";
import type { Executor } from "../platform/repositories/subnets";
import type { LedgerChainAccess, RecordedContract } from "./chain";

/** What else commits with a record, in its transaction (an agent adopting its transaction's sender as its wallet). */
export type Alongside = (executor: Executor) => Promise<void>;

/** Who sent the transaction, and its receipt when the caller already fetched it (the chain is not asked again). */
export type Sender = { wallet: Address; receipt?: TransactionReceipt; alongside?: Alongside };

/** What a kind's re-check says about a record against the canonical receipt of its transaction. */
export type RecordVerdict =
  /** The facts hold; `updates` (same database transaction as the move) adjust what only the position changed, e.g. a log index. */
  { holds: true; updates?: SQL[] } | { holds: false; reason: string };

/** A recorded transaction as the reconciler finds it: its hash, its record, and the sender of the canonical receipt. */
export type RecordedTx = { txHash: Hash; recordId: string; from: Address };

export type RecordKind<Claim extends Sender = Sender, Facts = unknown> = {
  /** `verified_transactions.kind`: stored, so never renamed. */
  name: string;
  /** The event that proves the record, and the contract that emits it. */
  on: { contract: RecordedContract; event: string };
  /**
   * Records others rest on settle first after a reorg (a pod's datanet, then the pod): stage 0
   * before 1 before 2.
   */
  stage: 0 | 1 | 2;
  /** The check when recorded: the transaction proves `claim`; its facts. Throws the chain's errors. */
  verify(context: LedgerChainAccess, txHash: Hash, claim: Claim): Promise<Facts>;
  /**
   * The same check, rebuilt from the stored record, against the canonical chain (the context's
   * confirmations are 1 there). Throws the chain's errors; a fact that changed is a verdict.
   */
  recheck(db: OffchainDb, context: LedgerChainAccess, record: RecordedTx): Promise<RecordVerdict>;
  /** Undoes the record, in the transaction that deletes its `verified_transactions` row. */
  undo(txHash: string): SQL[];
};

/** A kind's declaration, with its claim and facts types inferred. */
export const recordKind = <Claim extends Sender, Facts>(kind: RecordKind<Claim, Facts>) => kind;

export const holds = (updates?: SQL[]): RecordVerdict => (updates ? { holds: true, updates } : { holds: true });
export const changed = (reason: string): RecordVerdict => ({ holds: false, reason });
