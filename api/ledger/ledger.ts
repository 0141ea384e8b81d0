/**
 * One call records a verified transaction: the hash must back no record yet, the transaction must
 * prove the claim on chain (its kind's check), and the record is inserted with its
 * `verified_transactions` row in one database transaction. A hash already there (now or by a
 * concurrent request) is 400 "Transaction already used", checked before the chain is asked and
 * again atomically on insert. The chain is asked outside the database transaction, so no pooled
 * connection waits on the RPC.
 *
 * A txHash's trip: handler → service → `record()` → the kind's check (chain) and the insert
 * (repository).
 */
import type { Hash } from "viem";
import { ChainUnavailableError, TxVerificationError } from "../../chain/verify-tx";
import type { OffchainDb } from "../db/client";
import { isUniqueViolation, violatedConstraint } from "../db/errors";
import { badRequest, chainErrorToHttp, HttpError } from "../http/errors";
import type { Executor } from "../platform/repositories/subnets";
import type { LedgerChainAccess } from "./chain";
import { changed, type RecordedTx, type RecordKind, type RecordVerdict, type Sender } from "./kind";
import { insertVerifiedTransaction, isTransactionUsed } from "./records";
import { RECORD_KINDS } from "./registry";

export const TX_ALREADY_USED = "Transaction already used";

/** 400 before any chain call when the hash already backs a record. */
export async function assertTransactionUnused(db: Executor, txHash: Hash): Promise<void> {
  if (await isTransactionUsed(db, txHash)) throw badRequest(TX_ALREADY_USED);
}

export type RecordRequest<Claim extends Sender, Facts, T> = {
  txHash: Hash;
  /** The claim, made once the hash is known unused: checks that need no chain (a draft's state) run here. */
  claim: () => Claim | Promise<Claim>;
  /** Checks of the verified facts before anything is written (a token linked to another draft). */
  accept?: (facts: Facts) => void | Promise<void>;
  /** The record the transaction backs (`verified_transactions.record_id`). */
  recordId: string | ((facts: Facts) => string);
  insert: (executor: Executor, facts: Facts) => Promise<T>;
  /** The 400 message of another unique violation of the insert. */
  conflictMessage?: string;
};

/** Records a transaction of `kind` (see the module comment); the verified facts and what `insert` returned. */
export async function record<Claim extends Sender, Facts, T>(
  db: OffchainDb,
  context: LedgerChainAccess,
  kind: RecordKind<Claim, Facts>,
  { txHash, claim: makeClaim, accept, recordId, insert, conflictMessage }: RecordRequest<Claim, Facts, T>,
): Promise<{ facts: Facts; result: T }> {
  await assertTransactionUnused(db, txHash);
  const claim = await makeClaim();
  let facts: Facts;
  try {
    facts = await kind.verify(context, txHash, claim);
  } catch (error) {
    throw chainErrorToHttp(error);
  }
  await accept?.(facts);
  const verified = { txHash, kind: kind.name, recordId: typeof recordId === "string" ? recordId : recordId(facts) };
  const result = await commit(db, verified, (executor) => insert(executor, facts), claim.alongside, conflictMessage);
  return { facts, result };
}

/**
 * Records a transaction this server sent itself and whose receipt has not come yet: there is
 * nothing to check now, so the record is stored unchecked with its `verified_transactions` row;
 * the reorg reconciler runs the kind's re-check before it ties the row to a block, and undoes the
 * record when the check fails.
 */
export function recordSent<T>(
  db: OffchainDb,
  kind: RecordKind<never, unknown>,
  { txHash, recordId, insert }: { txHash: Hash; recordId: string; insert: (executor: Executor) => Promise<T> },
): Promise<T> {
  return commit(db, { txHash, kind: kind.name, recordId }, insert);
}

/** The record and its `verified_transactions` row in one database transaction; a taken hash is 400. */
async function commit<T>(
  db: OffchainDb,
  verified: { txHash: Hash; kind: string; recordId: string },
  insert: (executor: Executor) => Promise<T>,
  alongside?: Sender["alongside"],
  conflictMessage = "Conflicting record",
): Promise<T> {
  try {
    return await db.transaction(async (executor) => {
      await insertVerifiedTransaction(executor, verified);
      const result = await insert(executor);
      await alongside?.(executor);
      return result;
    });
  } catch (error) {
    if (error instanceof HttpError) throw error;
    if (isUniqueViolation(error)) {
      const constraint = violatedConstraint(error) ?? "";
      if (constraint.startsWith("verified_transactions") || constraint.endsWith("tx_hash_unique")) {
        throw badRequest(TX_ALREADY_USED);
      }
      throw badRequest(conflictMessage);
    }
    throw error;
  }
}

/** Re-runs a kind's check of a record against the canonical chain; throws when the chain cannot be asked. */
export type RecordVerifier = (record: RecordedTx) => Promise<RecordVerdict>;
export type RecordVerifiers = Partial<Record<string, RecordVerifier>>;

/** A failed check is a changed fact (400-class); an unreachable chain is thrown (the row waits). */
async function judged(check: () => Promise<RecordVerdict>): Promise<RecordVerdict> {
  try {
    return await check();
  } catch (error) {
    if (error instanceof TxVerificationError) return changed(error.message);
    if (error instanceof ChainUnavailableError) throw error;
    if (error instanceof HttpError && error.status < 500) return changed(error.message);
    throw error;
  }
}

/**
 * Every kind's re-check, for the reorg reconciler (api/reorgs). The confirmations rule of the
 * first check (TX_MIN_CONFIRMATIONS) is not applied again: a re-mined transaction is judged on its
 * facts, and the reconciler keeps checking it until it is final.
 */
export function createRecordVerifiers(db: OffchainDb, context: LedgerChainAccess): RecordVerifiers {
  const recheckContext: LedgerChainAccess = { chain: () => context.chain(), config: { txMinConfirmations: 1 } };
  return Object.fromEntries(
    RECORD_KINDS.map((kind) => [kind.name, (tx: RecordedTx) => judged(() => kind.recheck(db, recheckContext, tx))]),
  );
}
