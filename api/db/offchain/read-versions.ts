import { bigint, integer } from "drizzle-orm/pg-core";
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

