import { setDatabaseSchema } from "@ponder/client";
import { escapeIdentifier, escapeLiteral } from "pg";
import * as chainSchema from "../../ponder.schema";

/**
 * The indexer's tables (ponder.schema.ts), read-only, bound to the stable views schema that
 * `ponder start --views-schema` maintains, so a reindex into a new deployment schema is invisible
 * to the API. Query with the off-chain drizzle handle: `db.select().from(chain.pod)`.
 */
export const chain = chainSchema;

let boundViewsSchema = "chain";

/** Points every chain table at `viewsSchema` (process-wide: one API process reads one indexer). */
export function bindChainSchema(viewsSchema: string): void {
  boundViewsSchema = viewsSchema;
  setDatabaseSchema(chainSchema, viewsSchema);
}

/**
 * SQL text: the oid of `<views>._ponder_checkpoint` (NULL while it is missing). Ponder drops and
 * creates every view of the views schema when a deployment becomes ready, so the oid changes
 * whenever the deployment behind the views does (a reindex into a new schema, a restart), even
 * when the new one stands at the same checkpoint but computes some rows differently. Values kept
 * across requests are keyed by it.
 */
export function viewsDeploymentSql(viewsSchema = boundViewsSchema): string {
  return `to_regclass(${escapeLiteral(`${escapeIdentifier(viewsSchema)}._ponder_checkpoint`)})::oid::text`;
}

bindChainSchema("chain");
