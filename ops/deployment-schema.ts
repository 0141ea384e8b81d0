import { createHash } from "node:crypto";
import { readFileSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import type { ContractLocation, IndexedContract } from "./ponder-env";

const INDEXER_INPUTS = [
  "ponder.config.ts",
  "ponder.schema.ts",
  "src",
  "abis",
  "ops/ponder-env.ts",
  "chain/deployments.ts",
  "chain/protocol-config.ts",
];

function filesUnder(root: string, rel: string): string[] {
  const full = path.join(root, rel);
  if (!statSync(full, { throwIfNoEntry: false })) return [];
  if (!statSync(full).isDirectory()) return [rel];
  return readdirSync(full)
    .sort()
    .flatMap((entry) => filesUnder(root, path.join(rel, entry)));
}

/**
 * Ponder's schema for the contracts Ponder indexes (as its config resolves them) and this
 * version of the indexer:
 * a new chain or changed indexing code gets a fresh schema (a full reindex) while the
 * views schema keeps the API's name stable. At most 45 characters, as Ponder requires.
 */
export function indexerSchemaName(contracts: Record<IndexedContract, ContractLocation>, root: string): string {
  const chain = createHash("sha256")
    .update(JSON.stringify(contracts))
    .digest("hex")
    .slice(0, 8);
  const code = createHash("sha256");
  for (const file of INDEXER_INPUTS.flatMap((rel) => filesUnder(root, rel))) {
    code.update(file).update(readFileSync(path.join(root, file)));
  }
  return `ponder_${chain}_${code.digest("hex").slice(0, 8)}`;
}
