import { sql } from "drizzle-orm";
import {
  type AnyPgColumn,
  bigint,
  boolean,
  check,
  index,
  integer,
  pgSchema,
  text,
  timestamp,
  varchar,
} from "drizzle-orm/pg-core";

/** Every off-chain table lives here, out of reach of Ponder's schema management. */
export const offchain = pgSchema("offchain");

export const createdAt = () => timestamp("created_at", { withTimezone: true }).notNull().defaultNow();
export const updatedAt = () =>
  timestamp("updated_at", { withTimezone: true })
    .notNull()
    .defaultNow()
    .$onUpdate(() => new Date());

/** Check-constraint expression: wallet addresses and hashes are stored lower-case. */
export const lowerCase = (column: AnyPgColumn) => sql`${column} = lower(${column})`;

/**
 * Free-text search target "a b". Queries must use this same expression
 * (e.g. `ilike(podSearchDocument, pattern)`) for the trigram GIN index to apply.
 */
export const searchDocument = (a: AnyPgColumn, b: AnyPgColumn) => sql`(${a} || ' ' || ${b})`;

/**
 * One confirmed transaction backs at most one off-chain record, across every
 * kind of record (mint, publish, vote, boost, order, parameter update...).
 */
export const verifiedTransactions = offchain.table(
  "verified_transactions",
  {
    txHash: text("tx_hash").primaryKey(),
    kind: text("kind").notNull(),
    recordId: text("record_id").notNull(),
    /** The block the transaction was found in (filled by the reorg reconciler from its receipt). */
    blockNumber: bigint("block_number", { mode: "bigint" }),
    blockHash: text("block_hash"),
    /** Its block is at least the finality depth deep and still canonical: never checked again. */
    final: boolean("final").notNull().default(false),
    createdAt: createdAt(),
  },
  (t) => [
    check("verified_transactions_tx_hash_lower_case", lowerCase(t.txHash)),
    index("verified_transactions_kind_record_idx").on(t.kind, t.recordId),
    index("verified_transactions_unfinal_idx").on(t.createdAt).where(sql`not ${t.final}`),
  ],
);

/**
 * What the reorg reconciler did to a record whose transaction left the block it was verified in:
 * undone (dropped, reverted, or mined again with other facts) or reconfirmed (the identical
 * transaction mined again with the same facts). What an operator reads: `npm run reorgs`, the
 * log, `reconcilerStats()`.
 */
export const reorgedRecords = offchain.table(
  "reorged_records",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    txHash: text("tx_hash").notNull(),
    kind: text("kind").notNull(),
    recordId: text("record_id").notNull(),
    blockNumber: bigint("block_number", { mode: "bigint" }),
    blockHash: text("block_hash"),
    /**
     * What the canonical chain says now: "dropped" (no receipt), "reverted" (mined again, failed),
     * "changed" (mined again, the record's facts no longer hold) or "moved" (mined again in another
     * block, no check known for the kind); "re-mined" for a reconfirmed record.
     */
    reason: text("reason").notNull(),
    /** `undone` (the record and its `verified_transactions` row deleted) or `reconfirmed` (row moved to the new block). */
    outcome: text("outcome").notNull().default("undone"),
    /** The block the transaction is in now (reconfirmed records). */
    newBlockNumber: bigint("new_block_number", { mode: "bigint" }),
    newBlockHash: text("new_block_hash"),
    /** When the reconciler acted (undo or reconfirmation). */
    undoneAt: timestamp("undone_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    check("reorged_records_outcome", sql`${t.outcome} in ('undone', 'reconfirmed')`),
    index("reorged_records_tx_hash_idx").on(t.txHash),
  ],
);

/**
 * Counter table of rate-limiter-flexible's RateLimiterPostgres, in the exact
 * layout the library expects. Created here (not by the library at runtime) so
 * that replicas starting together never race to create it.
 */
export const rateLimits = offchain.table(
  "rate_limits",
  {
    key: varchar("key", { length: 255 }).primaryKey(),
    points: integer("points").notNull().default(0),
    expire: bigint("expire", { mode: "number" }),
  },
  (t) => [index("rate_limits_expire_idx").on(t.expire)],
);
