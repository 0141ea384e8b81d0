/** SQL of the stats resource: aggregates over the indexed chain tables and the off-chain rows. */
import { and, count, countDistinct, eq, inArray, isNotNull, sql } from "drizzle-orm";
import { chain } from "../../db/chain";
import { subnetDrafts, users } from "../../db/offchain";
import { cachedAtStamp, listStamp } from "./count-cache";
import { validInEpoch } from "./pods";
import { isTokenIdRef, isUuid, subnetJoin, type Executor } from "./subnets";

const bigintOf = (value: unknown): bigint => (value === null || value === undefined ? 0n : BigInt(String(value)));

/** The protocol singleton (epoch clock, CORE address); undefined before the indexer has seen the deployment. */
export async function protocolRow(db: Executor) {
  const [row] = await db
    .select({
      coreToken: chain.protocol.coreToken,
      epochGenesis: chain.protocol.epochGenesis,
      epochLength: chain.protocol.epochLength,
    })
    .from(chain.protocol)
    .limit(1);
  return row;
}

/**
 * Block time (unix seconds) of the latest indexed checkpoint, from Ponder's `_ponder_checkpoint`
 * in the views schema; falls back to the newest block time found in the indexed tables.
 */
export async function latestIndexedBlockTime(db: Executor, viewsSchema: string): Promise<bigint | undefined> {
  try {
    const result = await db.execute<{ latest: string | null }>(
      sql`SELECT max(substring(latest_checkpoint from 1 for 10)) AS latest FROM ${sql.identifier(viewsSchema)}."_ponder_checkpoint"`,
    );
    const latest = result.rows[0]?.latest;
    if (latest) return BigInt(latest);
  } catch {
    // no checkpoint view (indexer not started with a views schema): use the tables
  }
  const result = await db.execute<{ latest: string | null }>(sql`
    SELECT greatest(
      (SELECT max(${chain.datanet.createdAt}) FROM ${chain.datanet}),
      (SELECT max(${chain.pod.createdAt}) FROM ${chain.pod}),
      (SELECT max(${chain.vote.timestamp}) FROM ${chain.vote}),
      (SELECT max(${chain.lock.updatedAt}) FROM ${chain.lock}),
      (SELECT max(${chain.feeCollection.timestamp}) FROM ${chain.feeCollection})
    )::text AS latest`);
  const latest = result.rows[0]?.latest;
  return latest ? BigInt(latest) : undefined;
}

/** Indexed pods (minted, whatever their listing): a count once per stamp of the listed set (count-cache.ts). */
export async function totalPods(db: Executor): Promise<number> {
  return cachedAtStamp(await listStamp(db), "stats\ntotalPods", async () => {
    const [row] = await db.select({ total: count() }).from(chain.pod);
    return row?.total ?? 0;
  });
}

/**
 * Ids of the active datanets: every published (indexed) datanet, in token order; `id` is the
 * datanet's draft id when it has metadata here, else its on-chain tokenId (both are accepted by
 * the datanet routes), so the count agrees with the chain like `totalPods` does.
 */
export async function activeSubnetIds(db: Executor): Promise<string[]> {
  const rows = await db
    .select({ tokenId: chain.datanet.id, draftId: subnetDrafts.id })
    .from(chain.datanet)
    .leftJoin(subnetDrafts, subnetJoin)
    .orderBy(chain.datanet.id);
  return rows.map((row) => row.draftId ?? row.tokenId.toString());
}

export async function feeTotals(db: Executor, token: string) {
  const [row] = await db
    .select({
      amount: chain.feeTotal.amount,
      burnt: chain.feeTotal.burnt,
      toPerformancePool: chain.feeTotal.toPerformancePool,
      locked: chain.feeTotal.locked,
    })
    .from(chain.feeTotal)
    .where(eq(chain.feeTotal.token, token.toLowerCase() as `0x${string}`))
    .limit(1);
  return row ?? { amount: 0n, burnt: 0n, toPerformancePool: 0n, locked: 0n };
}

/** Open (not withdrawn) locks: totals, the governance accounts' share, count and distinct holders. */
export async function lockTotals(db: Executor) {
  const governance = db
    .select({ address: chain.governanceAccount.address })
    .from(chain.governanceAccount)
    .where(eq(chain.governanceAccount.isGovernance, true));
  const [row] = await db
    .select({
      total: sql<string>`coalesce(sum(${chain.lock.amount}), 0)::text`,
      governance: sql<string>`coalesce(sum(${chain.lock.amount}) filter (where ${inArray(chain.lock.owner, governance)}), 0)::text`,
      locks: count(),
      holders: countDistinct(chain.lock.owner),
    })
    .from(chain.lock)
    .where(eq(chain.lock.withdrawn, false));
  return {
    total: bigintOf(row?.total),
    governance: bigintOf(row?.governance),
    locks: row?.locks ?? 0,
    holders: row?.holders ?? 0,
  };
}

/** Platform users, plus wallets holding an open lock that no platform user is linked to. */
export async function totalUsers(db: Executor): Promise<number> {
  const result = await db.execute<{ total: string }>(sql`
    SELECT (
      (SELECT count(*) FROM ${users})
      + (SELECT count(DISTINCT l.owner) FROM ${chain.lock} l
         WHERE NOT l.withdrawn
           AND NOT EXISTS (SELECT 1 FROM ${users} u WHERE u.wallet_address = l.owner))
    )::text AS total`);
  return Number(result.rows[0]?.total ?? 0);
}

// ---- one datanet ----

export async function publishedSubnetWithChain(db: Executor, ref: string) {
  const byRef = isUuid(ref) ? eq(subnetDrafts.id, ref) : isTokenIdRef(ref) ? eq(subnetDrafts.tokenId, ref) : undefined;
  if (!byRef) return undefined;
  const [row] = await db
    .select({ draft: subnetDrafts, subnet: chain.datanet })
    .from(subnetDrafts)
    .innerJoin(chain.datanet, subnetJoin)
    .where(and(byRef, isNotNull(subnetDrafts.tokenId)))
    .limit(1);
  return row;
}

/** Pods of a datanet valid in `epoch`: a count once per stamp of the listed set (like totalPods). */
export async function activePodCount(db: Executor, subnetTokenId: bigint, epoch: bigint): Promise<number> {
  const key = `stats\nactivePods\n${subnetTokenId}\n${epoch}`;
  return cachedAtStamp(await listStamp(db), key, async () => {
    const [row] = await db
      .select({ total: count() })
      .from(chain.pod)
      .where(and(eq(chain.pod.subnetId, subnetTokenId), validInEpoch(epoch)));
    return row?.total ?? 0;
  });
}

/** Accounts holding bought access (the owner's built-in access is not counted). */
export async function accessHolderCount(db: Executor, subnetTokenId: bigint): Promise<number> {
  const [row] = await db
    .select({ total: count() })
    .from(chain.subnetAccessHolder)
    .where(eq(chain.subnetAccessHolder.subnetId, subnetTokenId));
  return row?.total ?? 0;
}

/** Sum of the datanet's collected fees of each kind paid in `token`. */
export async function collectedFees(db: Executor, subnetTokenId: bigint, token: string) {
  const rows = await db
    .select({ kind: chain.feeCollection.kind, amount: sql<string>`sum(${chain.feeCollection.amount})::text` })
    .from(chain.feeCollection)
    .where(
      and(
        eq(chain.feeCollection.subnetId, subnetTokenId),
        eq(chain.feeCollection.token, token.toLowerCase() as `0x${string}`),
      ),
    )
    .groupBy(chain.feeCollection.kind);
  const byKind = new Map(rows.map((row) => [row.kind, bigintOf(row.amount)]));
  return {
    publishing: byKind.get("publishing") ?? 0n,
    republishing: byKind.get("republishing") ?? 0n,
    access: byKind.get("access") ?? 0n,
    creation: byKind.get("creation") ?? 0n,
  };
}
