/**
 * Pods and subnets named in a path or body by their draft id (uuid) or on-chain token id, with the
 * visibility rules of drafts, and the 404s of a name that resolves to nothing.
 */
import { eq } from "drizzle-orm";
import type { OffchainDb } from "../../db/client";
import { isTokenIdRef, isUuid } from "../../db/refs";
import { podDrafts, subnetDrafts } from "../../db/offchain";
import { badRequest, notFound } from "../../http/errors";
import { findPublicSubnetWithChain, type SubnetWithChain } from "../repositories/subnets";

export const podNotFound = () => notFound("Pod not found");
export const subnetNotFound = () => notFound("Datanet not found");

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
  if (isUuid(id)) {
    const [row] = await db.select(columns).from(podDrafts).where(eq(podDrafts.id, id.toLowerCase())).limit(1);
    if (!row) return undefined;
    if (row.tokenId === null && !isOwnDraft(row, viewer)) return undefined;
    return podRefOf(row);
  }
  if (!isTokenIdRef(id)) return undefined;
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
  if (isUuid(id)) {
    [row] = await db.select(columns).from(subnetDrafts).where(eq(subnetDrafts.id, id.toLowerCase())).limit(1);
    if (!row) return undefined;
    if (row.tokenId === null && !isOwnDraft(row, viewer)) return undefined;
  } else if (isTokenIdRef(id)) {
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


/** A public subnet (published, with metadata, indexed) by id or tokenId; 404 otherwise. */
export async function requirePublicSubnet(db: OffchainDb, ref: string): Promise<SubnetWithChain & { tokenId: string }> {
  const subnet = await findPublicSubnetWithChain(db, ref);
  if (!subnet || subnet.tokenId === null) throw subnetNotFound();
  return subnet as SubnetWithChain & { tokenId: string };
}
