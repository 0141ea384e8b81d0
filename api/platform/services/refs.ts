/**
 * Pods and subnets named in a path or body by their draft id (uuid) or on-chain token id, with the
 * visibility rules of drafts, and the 404s of a name that resolves to nothing.
 */
import type { OffchainDb } from "../../db/client";
import { isTokenIdRef } from "../../db/refs";
import { badRequest, notFound } from "../../http/errors";
import { findPodDraftByRef } from "../repositories/pods";
import { findPublicSubnetWithChain, findSubnetDraftByRef, type SubnetWithChain } from "../repositories/subnets";

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

/** Who created a draft: a pod draft's `agentId`, a datanet draft's `createdByAgentId`. */
type DraftOwner = { ownerUserId: string | null; agentId?: string | null; createdByAgentId?: string | null };

/** A draft is visible once it is on chain; before that, to its creator only. */
const isVisible = (draft: DraftOwner & { tokenId: string | null }, viewer: Viewer) =>
  draft.tokenId !== null ||
  (viewer.userId !== undefined && draft.ownerUserId === viewer.userId) ||
  (viewer.agentId !== undefined && (draft.agentId ?? draft.createdByAgentId) === viewer.agentId);

/**
 * The pod named by `id`: a pod draft id (a draft not yet minted only for its creator) or a
 * decimal token id (the draft minted as that token, else a chain-only pod). Undefined when
 * `id` is neither or names nothing visible. A chain-only token id is not checked against the chain here.
 */
export async function findPodRef(db: OffchainDb, id: string, viewer: Viewer = {}): Promise<PodRef | undefined> {
  const draft = await findPodDraftByRef(db, id);
  if (!draft) {
    if (!isTokenIdRef(id)) return undefined;
    return {
      key: id,
      draftId: null,
      tokenId: BigInt(id),
      archived: false,
      banned: false,
      ownerUserId: null,
      agentId: null,
    };
  }
  if (!isVisible(draft, viewer)) return undefined;
  return {
    key: draft.id,
    draftId: draft.id,
    tokenId: draft.tokenId === null ? null : BigInt(draft.tokenId),
    archived: draft.archivedAt !== null,
    banned: draft.banned,
    ownerUserId: draft.ownerUserId,
    agentId: draft.agentId,
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
  const draft = await findSubnetDraftByRef(db, id);
  if (!draft) {
    if (!isTokenIdRef(id)) return undefined;
    return { key: id, draftId: null, tokenId: BigInt(id), name: null, description: null };
  }
  if (!isVisible(draft, viewer)) return undefined;
  return {
    key: draft.id,
    draftId: draft.id,
    tokenId: draft.tokenId === null ? null : BigInt(draft.tokenId),
    name: draft.subnetName,
    description: draft.subnetDescription,
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
