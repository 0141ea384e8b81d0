/** SQL of the pod resource (pod_drafts, pod_republishes, and the indexed `pod` and `vote`). */
import { and, count, desc, eq, gt, gte, inArray, isNotNull, isNull, lt, lte, or, sql, type SQL } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import { chain } from "../../db/chain";
import { agents, podDrafts, podRepublishes, podSearchDocument, subnetDrafts, users } from "../../db/offchain";
import { findByRef, refCondition } from "../../db/refs";
import { isUuid, searchCondition, type Executor } from "./subnets";
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
export function findPodDraftByRef(db: Executor, ref: string): Promise<PodDraftRow | undefined> {
  return findByRef(ref, (id) => findPodDraft(db, id), (tokenId) => findPodDraftByTokenId(db, tokenId));
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
  const byRef = refCondition(ref, podDrafts);
  if (!byRef) return undefined;
  const [row] = await selectPublic(db).where(and(byRef, listed)).limit(1);
  return row && toPublicRow(row);
}

export interface PublicPodFilters {
  offset: number;
  limit: number;
  /** A seek: the page starts after this token id (a cursor's position); `offset` is then ignored. */
  after?: bigint;
  search?: string;
  /** Only pods valid in this epoch. */
  epoch?: bigint;
  /** Only pods currently in the datanet with this token id. */
  subnetTokenId?: bigint;
}

/** A listed draft: minted, not banned, not archived (the predicate of `pod_drafts_listed_token_idx`). */
const listedDraft = and(isNotNull(podDrafts.tokenId), eq(podDrafts.banned, false), isNull(podDrafts.archivedAt))!;

/**
 * The draft's indexed pod exists (and matches `podFilter`), as a per-row check. `OFFSET 0` keeps
 * PostgreSQL from turning the EXISTS into a join (it does not flatten a subquery with an OFFSET),
 * so the outer query reads one table in index order and stops after the page: without statistics
 * (a fresh database after a bulk load, before ANALYZE) the planner takes a join of the listed
 * drafts and the pods for a few rows and sorts them — ~1 s for page 1 at 100k pods — while
 * this shape is an index walk it picks on its own (~0.1 ms; EXPLAIN ANALYZE in the bench
 * database, bench/read-path).
 */
const indexedPodOfDraft = (podFilter: SQL | undefined) =>
  sql`exists (select 1 from ${chain.pod} where ${chain.pod.id} = ${podDrafts.tokenId} and ${chain.pod.mintTxHash} = ${podDrafts.mintTxHash}${
    podFilter ? sql` and ${podFilter}` : sql``
  } offset 0)`;

/** The pod's draft is listed (the same check the other way round, for a walk of a datanet's pods). */
const listedDraftOfPod = sql`exists (select 1 from ${podDrafts} where ${podDrafts.tokenId} = ${chain.pod.id} and ${podDrafts.mintTxHash} = ${chain.pod.mintTxHash} and ${listedDraft} offset 0)`;

/** Most matches of a search kept as a list of token ids (see listPublicPods; tests lower it). */
export const searchIds = { max: 50_000 };

/**
 * One page of the public list, newest minted first (token id descending: unique, so the order is
 * total and a page by OFFSET equals a page by seek). Every read is one statement whose cost is
 * the page's, not the list's:
 * - the whole list or an epoch's: a walk of the listed drafts' token index backwards, each draft's
 *   indexed pod checked by its primary key (see indexedPodOfDraft);
 * - a datanet's: a walk of that datanet's pods (`pod_subnet_idx`, subnet_id then id) backwards,
 *   each pod's draft checked by its token id;
 * - a search: the token ids of every match, found once per stamp of the listed set (count-cache.ts)
 *   by the trigram index, kept in order; a page is then a slice of them, its rows read by token
 *   id, and the total is their number. A search matching more than searchIds.max pods (a
 *   word in most names) is counted instead and walked like the whole list: its matches are dense,
 *   so the walk stops early.
 * A deep page of a walk starts at the token id found at its offset (`OFFSET offset LIMIT 1` over
 * the same walk, no creator joins), computed once per stamp; the page is then
 * `token id ≤ boundary … LIMIT limit`. A cursor's page (`after`) needs no boundary: it is
 * `token id < after … LIMIT limit`, an index seek whatever its depth. Totals are cached under the same stamp. The columns of the
 * page (creator, datanet) are joined for its rows only.
 */
export async function listPublicPods(
  db: Executor,
  { offset, limit, after, search, epoch, subnetTokenId }: PublicPodFilters,
): Promise<PublicPodPage> {
  const searchWhere = searchCondition(podSearchDocument, search);
  const podFilter = and(
    epoch === undefined ? undefined : validInEpoch(epoch),
    subnetTokenId === undefined ? undefined : eq(chain.pod.subnetId, subnetTokenId),
  );
  const where = and(listed, searchWhere, podFilter)!;
  const stamp = await listStamp(db);
  const key = `pods\n${search ?? ""}\n${epoch ?? ""}\n${subnetTokenId ?? ""}`;
  const countAll = async () =>
    (await db.select({ total: count() }).from(podDrafts).innerJoin(chain.pod, podJoin).where(where))[0]?.total ?? 0;

  if (searchWhere) {
    const ids = await cachedAtStamp(stamp, `${key}\nids ≤ ${searchIds.max}`, () => matchingTokenIds(db, where));
    if (ids) {
      const start = after === undefined ? offset : firstBelow(ids, Number(after));
      const slice = Array.from(ids.subarray(start, start + limit), String);
      const more = start + limit < ids.length;
      if (slice.length === 0) return { rows: [], total: ids.length, start, more };
      const rows = await selectPublic(db)
        .where(and(listed, inArray(podDrafts.tokenId, slice)))
        .orderBy(desc(podDrafts.tokenId));
      return { rows: rows.map(toPublicRow), total: ids.length, start, more };
    }
  }

  // the walk, and the condition checked on each row it visits
  const byDatanet = subnetTokenId !== undefined;
  const walked = byDatanet
    ? and(
        isNotNull(chain.pod.id),
        podFilter,
        listedDraftOfPod,
        searchWhere &&
          sql`exists (select 1 from ${podDrafts} where ${podDrafts.tokenId} = ${chain.pod.id} and ${searchWhere} offset 0)`,
      )!
    : and(listedDraft, searchWhere, indexedPodOfDraft(podFilter))!;
  const walkKey = byDatanet ? chain.pod.id : podDrafts.tokenId;
  const walkIds = (from: SQL) =>
    db
      .select({ id: walkKey })
      .from(byDatanet ? chain.pod : podDrafts)
      .where(and(walked, from))
      .orderBy(desc(walkKey));

  const page = async (): Promise<PublicJoinedRow[]> => {
    const boundary =
      after !== undefined || offset === 0
        ? undefined
        : await cachedAtStamp(stamp, `${key}\n@${offset}`, async () => {
            const [row] = await walkIds(sql`true`).offset(offset).limit(1);
            return row ? BigInt(row.id as string | bigint) : null;
          });
    if (boundary === null) return [];
    const from =
      after !== undefined ? lt(walkKey, after.toString()) : boundary === undefined ? sql`true` : lte(walkKey, boundary.toString());
    // one row past the page tells whether another follows
    const ids = walkIds(from).limit(limit + 1);
    // `= any(array(…))`: the walk runs once and the page's drafts are read by token id; as
    // `in (…)`, without statistics PostgreSQL hashed the walk and scanned every listed draft
    // against it (32 ms instead of 0.3 for a datanet page at 100k pods)
    return selectPublic(db)
      .where(and(listed, sql`${podDrafts.tokenId} = any(array(${ids}))`))
      .orderBy(desc(podDrafts.tokenId));
  };
  const [rows, total] = await Promise.all([page(), cachedAtStamp(stamp, `${key}\ntotal`, countAll)]);
  return { rows: rows.slice(0, limit).map(toPublicRow), total, more: rows.length > limit };
}

export type PublicPodPage = {
  rows: PublicPodRow[];
  /** Listed pods matching the filters, all pages (cached per stamp). */
  total: number;
  /** Whether a listed pod follows the page's last one. */
  more: boolean;
  /** The page's exact position in the list, when known without a walk (a search's kept ids). */
  start?: number;
};

/** The index of the first id below `id` in ids sorted descending (binary search). */
function firstBelow(ids: Float64Array, id: number): number {
  let low = 0;
  let high = ids.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (ids[mid]! >= id) low = mid + 1;
    else high = mid;
  }
  return low;
}

/**
 * The token ids of the listed pods matching `where` (a search), newest first, as one
 * comma-separated text (one row to read, not thousands); undefined past searchIds.max matches
 * or for a token id beyond 2^53.
 */
async function matchingTokenIds(db: Executor, where: SQL): Promise<Float64Array | undefined> {
  const matches = db
    .select({ id: podDrafts.tokenId })
    .from(podDrafts)
    .innerJoin(chain.pod, podJoin)
    .where(where)
    .limit(searchIds.max + 1)
    .as("matches");
  const [row] = await db
    .select({ n: count(), ids: sql<string | null>`string_agg(${matches.id}::text, ',' order by ${matches.id} desc)` })
    .from(matches);
  if (!row || row.n > searchIds.max) return undefined;
  if (!row.ids) return new Float64Array(0);
  const ids = Float64Array.from(row.ids.split(","), Number);
  return ids.every(Number.isSafeInteger) ? ids : undefined;
}

/** The token id of a datanet given by id (uuid) or token id, when it is published; undefined otherwise. */
export async function publishedSubnetTokenId(db: Executor, ref: string): Promise<bigint | undefined> {
  const byRef = refCondition(ref, subnetDrafts);
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
