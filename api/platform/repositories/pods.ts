/** SQL of the pod resource (pod_drafts, pod_republishes, and the indexed `pod` and `vote`). */
import { and, count, desc, eq, gt, gte, inArray, isNotNull, isNull, lte, or, sql, type SQL } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import { chain } from "../../db/chain";
import { agents, podDrafts, podRepublishes, podSearchDocument, subnetDrafts, users } from "../../db/offchain";
import { isTokenIdRef, isUuid, searchCondition, type Executor } from "./subnets";
import { cachedAtStamp, listStamp } from "./count-cache";

export type PodDraftRow = typeof podDrafts.$inferSelect;
export type NewPodDraft = typeof podDrafts.$inferInsert;

/** Chain state shown with a pod; null while it is a draft or not yet indexed. */
const podChainColumns = {
  chainSubnetId: chain.pod.subnetId,
  chainMintEpoch: chain.pod.mintEpoch,
  chainValidityEpoch: chain.pod.validityEpoch,
  chainInvalidFromEpoch: chain.pod.invalidFromEpoch,
  chainUpVotes: chain.pod.cumulativeUpVotes,
  chainDownVotes: chain.pod.cumulativeDownVotes,
};

export type PodWithChain = PodDraftRow & {
  chainSubnetId: bigint | null;
  chainMintEpoch: bigint | null;
  chainValidityEpoch: bigint | null;
  chainInvalidFromEpoch: bigint | null;
  chainUpVotes: bigint | null;
  chainDownVotes: bigint | null;
};

export type PodCreatorRow = {
  userId: string | null;
  userName: string | null;
  userAvatarUrl: string | null;
  agentId: string | null;
  agentName: string | null;
  agentThumbnailUrl: string | null;
  walletUserId: string | null;
  walletUserName: string | null;
  walletUserAvatarUrl: string | null;
};

export type PublicPodRow = PodWithChain & { creator: PodCreatorRow };

// the draft's mint must be the token's indexed mint: after a reorg a stale link never joins
const podJoin = and(eq(chain.pod.id, podDrafts.tokenId), eq(chain.pod.mintTxHash, podDrafts.mintTxHash))!;

function selectWithChain(db: Executor) {
  return db.select({ draft: podDrafts, ...podChainColumns }).from(podDrafts).leftJoin(chain.pod, podJoin);
}

type JoinedRow = { draft: PodDraftRow } & Omit<PodWithChain, keyof PodDraftRow>;
const flatten = ({ draft, ...chainColumns }: JoinedRow): PodWithChain => ({ ...draft, ...chainColumns });

// ---- drafts ----

export async function insertPodDraft(db: Executor, values: NewPodDraft): Promise<PodDraftRow> {
  const [row] = await db.insert(podDrafts).values(values).returning();
  return row!;
}

export async function findPodDraft(db: Executor, id: string): Promise<PodDraftRow | undefined> {
  if (!isUuid(id)) return undefined;
  const [row] = await db.select().from(podDrafts).where(eq(podDrafts.id, id)).limit(1);
  return row;
}

export async function findPodDraftByTokenId(db: Executor, tokenId: bigint): Promise<PodDraftRow | undefined> {
  const [row] = await db.select().from(podDrafts).where(eq(podDrafts.tokenId, tokenId.toString())).limit(1);
  return row;
}

/** A pod by its id (uuid) or its on-chain tokenId. */
export async function findPodDraftByRef(db: Executor, ref: string): Promise<PodDraftRow | undefined> {
  if (isUuid(ref)) return findPodDraft(db, ref);
  if (isTokenIdRef(ref)) return findPodDraftByTokenId(db, BigInt(ref));
  return undefined;
}

export async function findUserPodWithChain(db: Executor, userId: string, id: string): Promise<PodWithChain | undefined> {
  if (!isUuid(id)) return undefined;
  const [row] = await selectWithChain(db)
    .where(and(eq(podDrafts.id, id), eq(podDrafts.ownerUserId, userId)))
    .limit(1);
  return row && flatten(row);
}

export async function listUserPodsWithChain(db: Executor, userId: string): Promise<PodWithChain[]> {
  const rows = await selectWithChain(db)
    .where(eq(podDrafts.ownerUserId, userId))
    .orderBy(desc(podDrafts.createdAt), desc(podDrafts.id));
  return rows.map(flatten);
}

/** Pods with metadata that `wallet` voted on in `epoch` (indexed Voted events), newest first. */
export async function listPodsVotedByWallet(db: Executor, wallet: string, epoch: number): Promise<PodWithChain[]> {
  const voted = db
    .selectDistinct({ podId: chain.vote.podId })
    .from(chain.vote)
    .where(and(eq(chain.vote.voter, wallet.toLowerCase() as `0x${string}`), eq(chain.vote.epoch, BigInt(epoch))));
  const rows = await selectWithChain(db)
    .where(inArray(podDrafts.tokenId, voted))
    .orderBy(desc(chain.pod.id));
  return rows.map(flatten);
}

export async function setPodMinted(
  db: Executor,
  { draftId, tokenId, txHash, wallet }: { draftId: string; tokenId: bigint; txHash: string; wallet: string },
): Promise<boolean> {
  const updated = await db
    .update(podDrafts)
    .set({ tokenId: tokenId.toString(), mintTxHash: txHash.toLowerCase(), walletAddress: wallet.toLowerCase() })
    .where(and(eq(podDrafts.id, draftId), isNull(podDrafts.tokenId)))
    .returning({ id: podDrafts.id });
  return updated.length === 1;
}

export async function insertPodRepublish(
  db: Executor,
  { podDraftId, txHash, subnetTokenId, subnetDraftId }: {
    podDraftId: string;
    txHash: string;
    subnetTokenId: bigint;
    /** The target datanet's draft, when it has metadata: the pod's privateSubnetId follows it. */
    subnetDraftId: string | undefined;
  },
): Promise<string> {
  const [row] = await db
    .insert(podRepublishes)
    .values({ podDraftId, txHash: txHash.toLowerCase(), subnetTokenId: subnetTokenId.toString() })
    .returning({ id: podRepublishes.id });
  if (subnetDraftId) await db.update(podDrafts).set({ subnetId: subnetDraftId }).where(eq(podDrafts.id, podDraftId));
  return row!.id;
}

// ---- public (minted, indexed, not banned, not archived) ----

const walletUsers = alias(users, "wallet_users");

const creatorColumns = {
  userId: users.id,
  userName: users.username,
  userAvatarUrl: users.avatarUrl,
  agentId: agents.id,
  agentName: agents.name,
  agentThumbnailUrl: agents.thumbnailUrl,
  walletUserId: walletUsers.id,
  walletUserName: walletUsers.username,
  walletUserAvatarUrl: walletUsers.avatarUrl,
};

const listed = and(
  isNotNull(podDrafts.tokenId),
  isNotNull(chain.pod.id),
  eq(podDrafts.banned, false),
  isNull(podDrafts.archivedAt),
);

/**
 * The datanet a public pod is in, as the indexer says now: the draft of the indexed datanet (joined
 * through its indexed publish), else its token id. A recorded republish that a reorg removed never
 * names the old datanet, even before the reconciler's pass.
 */
const indexedSubnetRef = sql<string>`coalesce((
  SELECT ${subnetDrafts.id}::text FROM ${subnetDrafts}
    JOIN ${chain.datanet} ON ${chain.datanet.id} = ${subnetDrafts.tokenId} AND ${chain.datanet.publishTxHash} = ${subnetDrafts.publishTxHash}
   WHERE ${subnetDrafts.tokenId} = ${chain.pod.subnetId}
), ${chain.pod.subnetId}::text)`;

function selectPublic(db: Executor) {
  return db
    .select({ draft: podDrafts, ...podChainColumns, ...creatorColumns, indexedSubnetRef })
    .from(podDrafts)
    .innerJoin(chain.pod, podJoin)
    .leftJoin(users, eq(users.id, podDrafts.ownerUserId))
    .leftJoin(agents, eq(agents.id, podDrafts.agentId))
    .leftJoin(walletUsers, and(isNull(podDrafts.ownerUserId), eq(walletUsers.walletAddress, podDrafts.walletAddress)));
}

type PublicJoinedRow = JoinedRow & PodCreatorRow & { indexedSubnetRef: string };

function toPublicRow(row: PublicJoinedRow): PublicPodRow {
  const {
    draft,
    chainSubnetId,
    chainMintEpoch,
    chainValidityEpoch,
    chainInvalidFromEpoch,
    chainUpVotes,
    chainDownVotes,
    indexedSubnetRef: subnetId,
    ...creator
  } = row;
  return {
    ...flatten({ draft: { ...draft, subnetId }, chainSubnetId, chainMintEpoch, chainValidityEpoch, chainInvalidFromEpoch, chainUpVotes, chainDownVotes }),
    creator,
  };
}

/** Valid for curation in `epoch`: minted by then, not expired, not invalidated before it. */
export function validInEpoch(epoch: bigint): SQL {
  return and(
    lte(chain.pod.mintEpoch, epoch),
    gte(chain.pod.validityEpoch, epoch),
    or(isNull(chain.pod.invalidFromEpoch), gt(chain.pod.invalidFromEpoch, epoch)),
  )!;
}

export async function findPublicPod(db: Executor, ref: string): Promise<PublicPodRow | undefined> {
  const byRef = isUuid(ref) ? eq(podDrafts.id, ref) : isTokenIdRef(ref) ? eq(podDrafts.tokenId, ref) : undefined;
  if (!byRef) return undefined;
  const [row] = await selectPublic(db).where(and(byRef, listed)).limit(1);
  return row && toPublicRow(row);
}

export interface PublicPodFilters {
  offset: number;
  limit: number;
  search?: string;
  /** Only pods valid in this epoch. */
  epoch?: bigint;
  /** Only pods currently in the datanet with this token id. */
  subnetTokenId?: bigint;
}

/**
 * One page of the public list, newest minted first (token id descending: unique, so the order is
 * total and a page by OFFSET equals a page by seek). The rows come from a keyset seek: the token id
 * at which the page starts (its "boundary": `OFFSET offset LIMIT 1` over the narrow
 * pod_drafts ⋈ pod join, no creator joins) is computed once per stamp of the listed set
 * (count-cache.ts), then the page is `token id ≤ boundary ORDER BY token id DESC LIMIT limit` —
 * O(limit) for every page while the set is unchanged (indexed votes do not change it). The total
 * is cached under the same stamp.
 */
export async function listPublicPods(
  db: Executor,
  { offset, limit, search, epoch, subnetTokenId }: PublicPodFilters,
): Promise<{ rows: PublicPodRow[]; total: number }> {
  const where = and(
    listed,
    searchCondition(podSearchDocument, search),
    epoch === undefined ? undefined : validInEpoch(epoch),
    subnetTokenId === undefined ? undefined : eq(chain.pod.subnetId, subnetTokenId),
  )!;
  const stamp = await listStamp(db);
  const key = `pods\n${search ?? ""}\n${epoch ?? ""}\n${subnetTokenId ?? ""}`;
  // the whole list or an epoch's (most pods): walk the listed drafts' index newest first (see
  // inTokenOrder); a search or a datanet may match few pods, found by their own indexes
  const walkByDraft = search === undefined && subnetTokenId === undefined;
  const countAll = async () =>
    (await db.select({ total: count() }).from(podDrafts).innerJoin(chain.pod, podJoin).where(where))[0]?.total ?? 0;
  const page = async () => {
    const boundary = offset === 0 ? undefined : await publicPageBoundary(db, stamp, key, where, offset, walkByDraft);
    if (boundary === null) return [];
    if (!walkByDraft) {
      return selectPublic(db)
        .where(boundary === undefined ? where : and(where, lte(chain.pod.id, boundary)))
        .orderBy(desc(chain.pod.id))
        .limit(limit);
    }
    return inTokenOrder(db, (tx) =>
      selectPublic(tx)
        .where(boundary === undefined ? where : and(where, lte(podDrafts.tokenId, boundary.toString())))
        .orderBy(desc(podDrafts.tokenId))
        .limit(limit),
    );
  };
  const [rows, total] = await Promise.all([page(), cachedAtStamp(stamp, `${key}\ntotal`, countAll)]);
  return { rows: rows.map(toPublicRow), total };
}

/** The token id of the row at `offset` of the list (null past its end), once per stamp. */
function publicPageBoundary(
  db: Executor,
  stamp: string | undefined,
  key: string,
  where: SQL,
  offset: number,
  walkByDraft: boolean,
): Promise<bigint | null> {
  return cachedAtStamp(stamp, `${key}\n@${offset}`, async () => {
    if (!walkByDraft) {
      const [row] = await db
        .select({ id: chain.pod.id })
        .from(podDrafts)
        .innerJoin(chain.pod, podJoin)
        .where(where)
        .orderBy(desc(chain.pod.id))
        .offset(offset)
        .limit(1);
      return row ? row.id : null;
    }
    const [row] = await inTokenOrder(db, (tx) =>
      tx
        .select({ id: chain.pod.id })
        .from(podDrafts)
        .innerJoin(chain.pod, podJoin)
        .where(where)
        .orderBy(desc(podDrafts.tokenId))
        .offset(offset)
        .limit(1),
    );
    return row ? row.id : null;
  });
}

/**
 * Runs a read of the public list in token order (newest first) with sorting disabled for its
 * plan, so PostgreSQL walks `pod_drafts_listed_token_idx` backwards and stops after the page
 * instead of joining every listed pod and sorting them. Without statistics (a fresh database
 * after a bulk load, before ANALYZE) the planner takes `archived_at IS NULL` for 0.5% of the rows
 * and picks join-then-sort: ~1 s for page 1 at 100k pods, against ~0.5 ms this way (EXPLAIN
 * ANALYZE in the bench database). The list is ordered by the draft's token id, equal to the
 * indexed pod's id by the join, so pages are unchanged. `SET LOCAL` ends with the transaction.
 */
function inTokenOrder<T>(db: Executor, read: (tx: Executor) => Promise<T>): Promise<T> {
  return db.transaction(async (tx) => {
    await tx.execute(sql`SET LOCAL enable_sort = off`);
    return read(tx);
  });
}

/** The token id of a datanet given by id (uuid) or token id, when it is published; undefined otherwise. */
export async function publishedSubnetTokenId(db: Executor, ref: string): Promise<bigint | undefined> {
  const byRef = isUuid(ref) ? eq(subnetDrafts.id, ref) : isTokenIdRef(ref) ? eq(subnetDrafts.tokenId, ref) : undefined;
  if (!byRef) return undefined;
  const [row] = await db
    .select({ tokenId: subnetDrafts.tokenId })
    .from(subnetDrafts)
    .where(and(byRef, isNotNull(subnetDrafts.tokenId)))
    .limit(1);
  return row?.tokenId ? BigInt(row.tokenId) : undefined;
}

// ---- moderation ----

export async function setPodBanned(db: Executor, draftId: string, reason: string): Promise<void> {
  await db.update(podDrafts).set({ banned: true, banReason: reason }).where(eq(podDrafts.id, draftId));
}

/** Minted pods whose slop check was skipped (chat mints with skipSlopCheck), newest first. */
export async function listSlopCheckSkippedPods(db: Executor): Promise<PodWithChain[]> {
  const rows = await selectWithChain(db)
    .where(and(eq(podDrafts.slopCheckSkipped, true), isNotNull(podDrafts.tokenId)))
    .orderBy(desc(podDrafts.createdAt), desc(podDrafts.id));
  return rows.map(flatten);
}

/** The SQL of the public list's search, for checking its plan (tests). */
export function publicSearchQuery(db: Executor, search: string) {
  return db
    .select({ id: podDrafts.id })
    .from(podDrafts)
    .where(searchCondition(podSearchDocument, search) ?? sql`true`);
}
