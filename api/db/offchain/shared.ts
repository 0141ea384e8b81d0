import { sql } from "drizzle-orm";
import { type AnyPgColumn, bigint, check, index, integer, pgSchema, text, timestamp, varchar } from "drizzle-orm/pg-core";

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
    createdAt: createdAt(),
  },
  (t) => [
    check("verified_transactions_tx_hash_lower_case", lowerCase(t.txHash)),
    index("verified_transactions_kind_record_idx").on(t.kind, t.recordId),
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
