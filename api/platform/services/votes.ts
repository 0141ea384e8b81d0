/**
 * Votes and the references they hang on: resolving a pod or datanet given by its draft id (uuid)
 * or on-chain token id, verifying a `Voted` transaction, recording a reported vote, and reading
 * a wallet's votes on a pod in an epoch (indexed votes plus verified reported ones).
 */
import { and, asc, eq } from "drizzle-orm";
import type { Address, Hash } from "viem";
import { PodManagerAbi } from "../../../abis";
import { eventId } from "../../../src/lib/ids";
import { chain } from "../../db/chain";
import type { OffchainDb } from "../../db/client";
import { podDrafts, subnetDrafts, votesReported } from "../../db/offchain";
import { badRequest } from "../../http/errors";
import { verifyOnChain, type PlatformContext } from "../context";
import { recordWithTransaction } from "./subnet-drafts";

export { assertTransactionUnused, recordWithTransaction } from "./subnet-drafts";

/** Kinds of `verified_transactions` rows written by the engagement and agent routes. */
export const VOTE_TX_KIND = "vote";
export const BOOST_TX_KIND = "boost";
export const ORDER_TX_KIND = "subscription-order";

export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** A uint256 token id written in decimal. */
export const TOKEN_ID_PATTERN = /^(0|[1-9]\d{0,76})$/;

/** Who is looking: a draft that is not published yet is visible to its creator only. */
export type Viewer = { userId?: string; agentId?: string };

export type PodRef = {
  /** Key the off-chain records use: the draft id when the pod has metadata, else its token id. */
  key: string;
  draftId: string | null;
  tokenId: bigint | null;
  archived: boolean;
  banned: boolean;
  ownerUserId: string | null;
  agentId: string | null;
};

const isOwnDraft = (row: { ownerUserId: string | null; agentId?: string | null; createdByAgentId?: string | null }, viewer: Viewer) =>
  (viewer.userId !== undefined && row.ownerUserId === viewer.userId) ||
  (viewer.agentId !== undefined && (row.agentId ?? row.createdByAgentId) === viewer.agentId);

/**
 * The pod named by `id`: a pod draft id (a draft not yet minted only for its creator) or a
 * decimal token id (the draft minted as that token, else a chain-only pod). Undefined when
 * `id` is neither or names nothing visible. A chain-only token id is not checked against the chain here.
 */
export async function findPodRef(db: OffchainDb, id: string, viewer: Viewer = {}): Promise<PodRef | undefined> {
  const columns = {
    id: podDrafts.id,
    tokenId: podDrafts.tokenId,
    archivedAt: podDrafts.archivedAt,
    banned: podDrafts.banned,
    ownerUserId: podDrafts.ownerUserId,
    agentId: podDrafts.agentId,
  };
  if (UUID_PATTERN.test(id)) {
    const [row] = await db.select(columns).from(podDrafts).where(eq(podDrafts.id, id.toLowerCase())).limit(1);
    if (!row) return undefined;
    if (row.tokenId === null && !isOwnDraft(row, viewer)) return undefined;
    return podRefOf(row);
  }
  if (!TOKEN_ID_PATTERN.test(id)) return undefined;
  const [row] = await db.select(columns).from(podDrafts).where(eq(podDrafts.tokenId, id)).limit(1);
  if (row) return podRefOf(row);
  return { key: id, draftId: null, tokenId: BigInt(id), archived: false, banned: false, ownerUserId: null, agentId: null };
}

function podRefOf(row: {
  id: string;
  tokenId: string | null;
  archivedAt: Date | null;
  banned: boolean;
  ownerUserId: string | null;
  agentId: string | null;
}): PodRef {
  return {
    key: row.id,
    draftId: row.id,
    tokenId: row.tokenId === null ? null : BigInt(row.tokenId),
    archived: row.archivedAt !== null,
    banned: row.banned,
    ownerUserId: row.ownerUserId,
    agentId: row.agentId,
  };
}

/** The token id of a pod that must be minted for the action (400 for the creator's own draft). */
export function mintedTokenId(pod: PodRef): bigint {
  if (pod.tokenId === null) throw badRequest("Pod is not minted yet");
  return pod.tokenId;
}

export type SubnetRef = {
  /** The draft id when the datanet has metadata, else its token id. */
  key: string;
  draftId: string | null;
  tokenId: bigint | null;
  name: string | null;
  description: string | null;
};

/** The datanet named by `id` (draft id or decimal token id), with the same visibility rules as pods. */
export async function findSubnetRef(db: OffchainDb, id: string, viewer: Viewer = {}): Promise<SubnetRef | undefined> {
  const columns = {
    id: subnetDrafts.id,
    tokenId: subnetDrafts.tokenId,
    ownerUserId: subnetDrafts.ownerUserId,
    createdByAgentId: subnetDrafts.createdByAgentId,
    name: subnetDrafts.subnetName,
    description: subnetDrafts.subnetDescription,
  };
  let row;
  if (UUID_PATTERN.test(id)) {
    [row] = await db.select(columns).from(subnetDrafts).where(eq(subnetDrafts.id, id.toLowerCase())).limit(1);
    if (!row) return undefined;
    if (row.tokenId === null && !isOwnDraft(row, viewer)) return undefined;
  } else if (TOKEN_ID_PATTERN.test(id)) {
    [row] = await db.select(columns).from(subnetDrafts).where(eq(subnetDrafts.tokenId, id)).limit(1);
    if (!row) return { key: id, draftId: null, tokenId: BigInt(id), name: null, description: null };
  } else {
    return undefined;
  }
  return {
    key: row.id,
    draftId: row.id,
    tokenId: row.tokenId === null ? null : BigInt(row.tokenId),
    name: row.name,
    description: row.description,
  };
}

/** The token id of a datanet that must be published for the action. */
export function publishedTokenId(subnet: SubnetRef): bigint {
  if (subnet.tokenId === null) throw badRequest("Datanet is not published yet");
  return subnet.tokenId;
}

// ---- transactions ----
// Reuse rules are those of subnet-drafts.ts: a hash already in verified_transactions is 400
// "Transaction already used", checked before the chain is asked and again atomically on insert.

// ---- votes ----

export type VerifiedVote = {
  voteId: string;
  txHash: Hash;
  logIndex: number;
  podTokenId: bigint;
  voter: Address;
  subnetTokenId: bigint;
  epoch: bigint;
  votes: bigint;
  upVote: boolean;
  votingPower: bigint;
};

export type VoteClaim = {
  podTokenId: bigint;
  epoch?: bigint;
  votes?: bigint;
  upVote?: boolean;
};

/**
 * Proves that `hash` is a successful PodManager `vote` sent by `voter` whose `Voted` event
 * names the pod (and, when given, the epoch, exact raw votes and direction). 400 otherwise.
 */
export async function verifyVoteTransaction(
  context: PlatformContext,
  { hash, voter, claim }: { hash: Hash; voter: Address; claim: VoteClaim },
): Promise<VerifiedVote> {
  const { event } = await verifyOnChain(context, {
    hash,
    from: voter,
    contract: { address: context.chain().protocol.contracts.PodManager.address, name: "PodManager" },
    abi: PodManagerAbi,
    eventName: "Voted",
    matches: (args) =>
      args.podId === claim.podTokenId &&
      args.voter.toLowerCase() === voter.toLowerCase() &&
      (claim.epoch === undefined || args.epoch === claim.epoch) &&
      (claim.votes === undefined || args.votes === claim.votes) &&
      (claim.upVote === undefined || args.upVote === claim.upVote),
    describe: "the pod, epoch, votes and direction of the request",
  });
  const a = event.args;
  return {
    voteId: eventId(event.transactionHash, event.logIndex),
    txHash: event.transactionHash.toLowerCase() as Hash,
    logIndex: event.logIndex,
    podTokenId: a.podId,
    voter: a.voter.toLowerCase() as Address,
    subnetTokenId: a.subnetId,
    epoch: a.epoch,
    votes: a.votes,
    upVote: a.upVote,
    votingPower: a.votingPower,
  };
}

/** Records a verified vote reported by a user or an agent; the transaction backs this record only. */
export async function recordReportedVote(
  db: OffchainDb,
  vote: VerifiedVote,
  by: { userId?: string; agentId?: string; podKey: string },
): Promise<string> {
  if (vote.epoch > 2_147_483_647n) throw badRequest("epoch out of range");
  await recordWithTransaction(db, { txHash: vote.txHash, kind: VOTE_TX_KIND, recordId: vote.voteId }, (executor) =>
    executor.insert(votesReported).values({
      voteId: vote.voteId,
      userId: by.userId ?? null,
      agentId: by.agentId ?? null,
      podId: by.podKey,
      podTokenId: vote.podTokenId.toString(),
      subnetTokenId: vote.subnetTokenId.toString(),
      voter: vote.voter,
      epoch: Number(vote.epoch),
      votes: vote.votes.toString(),
      votingPower: vote.votingPower.toString(),
      upVote: vote.upVote,
      txHash: vote.txHash,
      logIndex: vote.logIndex,
    }),
  );
  return vote.voteId;
}

export type WalletVote = {
  voteId: string;
  subnetTokenId: bigint;
  votes: bigint;
  upVote: boolean;
  votingPower: bigint;
};

/**
 * The wallet's votes on a pod in an epoch: the indexed `Voted` events (when the indexer's views
 * exist) together with the verified reported votes the indexer may not have reached yet.
 */
export async function walletVotesOnPod(
  db: OffchainDb,
  { voter, podTokenId, epoch, includeIndexed }: { voter: string; podTokenId: bigint; epoch: number; includeIndexed: boolean },
): Promise<WalletVote[]> {
  const byId = new Map<string, WalletVote>();
  if (includeIndexed) {
    const indexed = await db
      .select({
        id: chain.vote.id,
        subnetId: chain.vote.subnetId,
        votes: chain.vote.votes,
        upVote: chain.vote.upVote,
        votingPower: chain.vote.votingPower,
      })
      .from(chain.vote)
      .where(
        and(
          eq(chain.vote.podId, podTokenId),
          eq(chain.vote.epoch, BigInt(epoch)),
          eq(chain.vote.voter, voter.toLowerCase() as `0x${string}`),
        ),
      )
      .orderBy(asc(chain.vote.blockNumber), asc(chain.vote.logIndex));
    for (const v of indexed) {
      byId.set(v.id, { voteId: v.id, subnetTokenId: v.subnetId, votes: v.votes, upVote: v.upVote, votingPower: v.votingPower });
    }
  }
  const reported = await db
    .select({
      voteId: votesReported.voteId,
      subnetTokenId: votesReported.subnetTokenId,
      votes: votesReported.votes,
      upVote: votesReported.upVote,
      votingPower: votesReported.votingPower,
    })
    .from(votesReported)
    .where(
      and(
        eq(votesReported.voter, voter.toLowerCase()),
        eq(votesReported.podTokenId, podTokenId.toString()),
        eq(votesReported.epoch, epoch),
      ),
    )
    .orderBy(asc(votesReported.createdAt));
  for (const v of reported) {
    if (byId.has(v.voteId)) continue;
    byId.set(v.voteId, {
      voteId: v.voteId,
      subnetTokenId: BigInt(v.subnetTokenId),
      votes: BigInt(v.votes),
      upVote: v.upVote,
      votingPower: BigInt(v.votingPower),
    });
  }
  return [...byId.values()];
}

/** Whether the indexed pod exists (chain-only pods named by token id). */
export async function indexedPodExists(db: OffchainDb, tokenId: bigint): Promise<boolean> {
  const [row] = await db.select({ id: chain.pod.id }).from(chain.pod).where(eq(chain.pod.id, tokenId)).limit(1);
  return row !== undefined;
}

/** Stable user id for a wallet without a platform account (public vote lists). */
export const walletUserId = (wallet: string) => `wallet:${wallet.toLowerCase()}`;


