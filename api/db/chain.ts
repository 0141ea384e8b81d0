import { setDatabaseSchema } from "@ponder/client";
import * as chainSchema from "../../ponder.schema";

/**
 * The indexer's tables (ponder.schema.ts), read-only, bound to the stable views schema that
 * `ponder start --views-schema` maintains, so a reindex into a new deployment schema is invisible
 * to the API. Query with the off-chain drizzle handle: `db.select().from(chain.pod)`.
 */
export const chain = chainSchema;

/** Points every chain table at `viewsSchema` (process-wide: one API process reads one indexer). */
export function bindChainSchema(viewsSchema: string): void {
  setDatabaseSchema(chainSchema, viewsSchema);
}

bindChainSchema("chain");
