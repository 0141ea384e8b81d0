/** SQL of the datanet resource (subnet_drafts, subnet_parameter_updates, and the indexed `datanet`). */
import { and, count, desc, eq, ilike, isNotNull, isNull, sql, type SQL } from "drizzle-orm";
import { chain } from "../../db/chain";
import type { OffchainDb } from "../../db/client";
import { findByRef, isTokenIdRef, isUuid, refCondition } from "../../db/refs";
import { subnetDrafts, subnetParameterUpdates, subnetSearchDocument } from "../../db/offchain";

export type Executor = OffchainDb | Parameters<Parameters<OffchainDb["transaction"]>[0]>[0];
export type SubnetDraftRow = typeof subnetDrafts.$inferSelect;
export type NewSubnetDraft = typeof subnetDrafts.$inferInsert;

export { isTokenIdRef, isUuid };

/** The escaped ILIKE patterns of each word of a free-text search ("a b" must find both words). */
export function searchPatterns(search: string | undefined): string[] {
  if (!search) return [];
  return search
    .trim()
    .split(/\s+/)
    .filter((word) => word.length > 0)
    .slice(0, 10)
    .map((word) => `%${word.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`);
}

/** Every word of the search in `document` (each condition can use the document's trigram GIN index). */
export function searchCondition(document: SQL, search: string | undefined): SQL | undefined {
  const patterns = searchPatterns(search);
  if (patterns.length === 0) return undefined;
  return and(...patterns.map((pattern) => ilike(document, pattern)));
}

/** Chain state shown with a datanet; null while it is a draft or not yet indexed. */
const subnetChainColumns = {
  chainAccessFeeCORE: chain.datanet.accessFeeCORE,
  chainEmissionsPerEpochCORE: chain.datanet.emissionsPerEpochCORE,
  chainEmissionsPerEpochPrimaryToken: chain.datanet.emissionsPerEpochPrimaryToken,
  chainUpVotes: chain.datanet.cumulativeUpVotes,
  chainDownVotes: chain.datanet.cumulativeDownVotes,
};

export type SubnetWithChain = SubnetDraftRow & {
  chainAccessFeeCORE: bigint | null;
  chainEmissionsPerEpochCORE: bigint | null;
  chainEmissionsPerEpochPrimaryToken: bigint | null;
  chainUpVotes: bigint | null;
  chainDownVotes: bigint | null;
};

// the draft's publish must be the datanet's indexed publish: after a reorg a stale link never joins
export const subnetJoin = and(
  eq(chain.datanet.id, subnetDrafts.tokenId),
  eq(chain.datanet.publishTxHash, subnetDrafts.publishTxHash),
)!;

function selectWithChain(db: Executor) {
  return db
    .select({ draft: subnetDrafts, ...subnetChainColumns })
    .from(subnetDrafts)
    .leftJoin(chain.datanet, subnetJoin);
}

type JoinedRow = { draft: SubnetDraftRow } & Omit<SubnetWithChain, keyof SubnetDraftRow>;
const flatten = ({ draft, ...chainColumns }: JoinedRow): SubnetWithChain => ({ ...draft, ...chainColumns });

// ---- drafts ----

export async function insertSubnetDraft(db: Executor, values: NewSubnetDraft): Promise<SubnetDraftRow> {
  const [row] = await db.insert(subnetDrafts).values(values).returning();
  return row!;
}

export async function findSubnetDraft(db: Executor, id: string): Promise<SubnetDraftRow | undefined> {
  if (!isUuid(id)) return undefined;
  const [row] = await db.select().from(subnetDrafts).where(eq(subnetDrafts.id, id)).limit(1);
  return row;
}

export async function findSubnetDraftByTokenId(db: Executor, tokenId: bigint): Promise<SubnetDraftRow | undefined> {
  const [row] = await db.select().from(subnetDrafts).where(eq(subnetDrafts.tokenId, tokenId.toString())).limit(1);
  return row;
}

/** A datanet by its id (uuid) or its on-chain tokenId. */
export function findSubnetDraftByRef(db: Executor, ref: string): Promise<SubnetDraftRow | undefined> {
  return findByRef(ref, (id) => findSubnetDraft(db, id), (tokenId) => findSubnetDraftByTokenId(db, tokenId));
}

export async function findUserSubnetWithChain(
  db: Executor,
  userId: string,
  id: string,
): Promise<SubnetWithChain | undefined> {
  if (!isUuid(id)) return undefined;
  const [row] = await selectWithChain(db)
    .where(and(eq(subnetDrafts.id, id), eq(subnetDrafts.ownerUserId, userId)))
    .limit(1);
  return row && flatten(row);
}

export async function listUserSubnetsWithChain(db: Executor, userId: string): Promise<SubnetWithChain[]> {
  const rows = await selectWithChain(db)
    .where(eq(subnetDrafts.ownerUserId, userId))
    .orderBy(desc(subnetDrafts.createdAt), desc(subnetDrafts.id));
  return rows.map(flatten);
}

// ---- public (published and indexed) ----

const published = and(isNotNull(subnetDrafts.tokenId), isNotNull(chain.datanet.id));

export async function findPublicSubnetWithChain(db: Executor, ref: string): Promise<SubnetWithChain | undefined> {
  const byRef = refCondition(ref, subnetDrafts);
  if (!byRef) return undefined;
  const [row] = await selectWithChain(db).where(and(byRef, published)).limit(1);
  return row && flatten(row);
}

export async function listPublicSubnetsWithChain(
  db: Executor,
  { offset, limit, search }: { offset: number; limit: number; search?: string },
): Promise<{ rows: SubnetWithChain[]; total: number }> {
  const where = and(published, searchCondition(subnetSearchDocument, search));
  const [rows, [totals]] = await Promise.all([
    selectWithChain(db)
      .where(where)
      // newest published first; the token id is unique and grows with each publication
      .orderBy(desc(chain.datanet.id))
      .limit(limit)
      .offset(offset),
    db.select({ total: count() }).from(subnetDrafts).innerJoin(chain.datanet, subnetJoin).where(where),
  ]);
  return { rows: rows.map(flatten), total: totals?.total ?? 0 };
}

// ---- verified transactions ----

/** Links a draft to its on-chain token; false when the draft got published meanwhile. */
export async function setSubnetPublished(
  db: Executor,
  { draftId, tokenId, txHash }: { draftId: string; tokenId: bigint; txHash: string },
): Promise<boolean> {
  const updated = await db
    .update(subnetDrafts)
    .set({ tokenId: tokenId.toString(), publishTxHash: txHash.toLowerCase() })
    .where(and(eq(subnetDrafts.id, draftId), isNull(subnetDrafts.tokenId)))
    .returning({ id: subnetDrafts.id });
  return updated.length === 1;
}

export async function insertSubnetParameterUpdate(
  db: Executor,
  values: { subnetDraftId: string; param: string; value: bigint; txHash: string },
): Promise<string> {
  const [row] = await db
    .insert(subnetParameterUpdates)
    .values({ ...values, value: values.value.toString(), txHash: values.txHash.toLowerCase() })
    .returning({ id: subnetParameterUpdates.id });
  return row!.id;
}

/** The SQL text of the public list's search, for checking its plan (tests). */
export function publicSearchQuery(db: Executor, search: string) {
  return db
    .select({ id: subnetDrafts.id })
    .from(subnetDrafts)
    .where(searchCondition(subnetSearchDocument, search) ?? sql`true`);
}
