import { bigint, bigserial, index, integer, numeric, timestamp } from "drizzle-orm/pg-core";
import { offchain } from "./shared";

/**
 * Off-chain change counter of the read cache (api/http/read-version.ts): a statement trigger on
 * every platform table adds 1 to one of these slots (chosen by backend pid, so concurrent writers
 * rarely wait on one row) in the writing transaction; the version is the sum of all slots.
 * Created with its 16 slots and the triggers by migration 0003.
 */
export const readVersions = offchain.table("read_versions", {
  slot: integer("slot").primaryKey(),
  version: bigint("version", { mode: "number" }).notNull().default(0),
});

/**
 * Off-chain change counter of the public pod list's derived values (count-cache.ts): the same
 * sharded slots, bumped only by writes that can change the listed set or the columns the list
 * filters, searches and orders on (pod_drafts' token id, mint, ban, archive, name, description).
 * Created with its 16 slots and the triggers by migration 0008.
 */
export const listVersions = offchain.table("list_versions", {
  slot: integer("slot").primaryKey(),
  version: bigint("version", { mode: "number" }).notNull().default(0),
});

/**
 * Which pods' listing each off-chain write changed (api/platform/repositories/listed-pods.ts
 * follows it instead of reading every listed pod again): a row per token id that a pod draft's
 * insert, delete or change of token id, mint, ban or archive touched (old and new id), written by
 * row triggers in the writing transaction (migration 0009). `txid` is that transaction's id, so a
 * reader knows which rows its last snapshot did not see (`pg_visible_in_snapshot`), whatever the
 * commit order. A null token id means every pod (a TRUNCATE). Rows older than a day are deleted
 * by the same trigger; a reader whose last refresh is older reads the whole list again.
 */
export const listChanges = offchain.table(
  "list_changes",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    txid: bigint("txid", { mode: "number" }).notNull(),
    tokenId: numeric("token_id", { precision: 78, scale: 0 }),
    at: timestamp("at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("list_changes_txid_idx").on(t.txid), index("list_changes_at_idx").on(t.at)],
);
