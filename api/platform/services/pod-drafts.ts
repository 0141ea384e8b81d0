/**
 * Pod drafts: creation, and the verified on-chain steps (mint, republish). Used by the cookie routes
 * (/me/pods...) and by the agent routes (creator = the agent). Same txHash rules as subnet-drafts.ts.
 */
import { randomUUID } from "node:crypto";
import { isAddressEqual, type Address, type Hash, type TransactionReceipt } from "viem";
import type { OffchainDb } from "../../db/client";
import { badRequest } from "../../http/errors";
import { verifyOnChain, type PlatformContext } from "../context";
import {
  findPodDraft,
  findPodDraftByTokenId,
  findPublicPod,
  insertPodDraft,
  insertPodRepublish,
  setPodMinted,
  type PodDraftRow,
  type PublicPodRow,
} from "../repositories/pods";
import {
  findSubnetDraft,
  findSubnetDraftByRef,
  findSubnetDraftByTokenId,
  type Executor,
  type SubnetDraftRow,
} from "../repositories/subnets";
import type { PodDraftBody } from "../schemas/drafts";
import { podNotFound } from "./refs";
import { type Alongside, assertTransactionUnused, recordWithTransaction, TX_KINDS, type Creator } from "./subnet-drafts";

/** Who creates a pod: a user, an agent, or (chat server mints) only a wallet. */
export type PodCreator = Creator | { kind: "wallet"; wallet: Address };

export type PodSource = "platform" | "agent" | "chat";

export function ownsPodDraft(draft: PodDraftRow, creator: PodCreator): boolean {
  if (creator.kind === "user") return draft.ownerUserId === creator.userId;
  if (creator.kind === "agent") return draft.agentId === creator.agentId;
  return draft.ownerUserId === null && draft.agentId === null && draft.walletAddress === creator.wallet.toLowerCase();
}

/** The creator's pod draft, else 404 "Pod not found" (also for other creators' pods and malformed ids). */
export async function requireOwnedPodDraft(db: Executor, creator: PodCreator, id: string): Promise<PodDraftRow> {
  const draft = await findPodDraft(db, id);
  if (!draft || !ownsPodDraft(draft, creator)) throw podNotFound();
  return draft;
}

/**
 * The datanet a pod draft targets (`subnetId`: its id or tokenId): a published datanet, or a draft of
 * the same creator. Anything else is 400, the same answer whether it does not exist or is someone else's draft.
 */
export async function resolveTargetSubnet(db: Executor, creator: PodCreator, ref: string): Promise<SubnetDraftRow> {
  const subnet = await findSubnetDraftByRef(db, ref);
  const visible =
    subnet &&
    (subnet.tokenId !== null ||
      (creator.kind === "user" && subnet.ownerUserId === creator.userId) ||
      (creator.kind === "agent" && subnet.createdByAgentId === creator.agentId));
  if (!subnet || !visible) throw badRequest("subnetId: datanet not found");
  return subnet;
}

function draftValues(
  creator: PodCreator,
  subnet: SubnetDraftRow,
  body: PodDraftBody,
  options: { source?: PodSource; slopCheckSkipped?: boolean } = {},
) {
  return {
    ownerUserId: creator.kind === "user" ? creator.userId : null,
    agentId: creator.kind === "agent" ? creator.agentId : null,
    walletAddress: creator.kind === "wallet" ? creator.wallet.toLowerCase() : null,
    subnetId: subnet.id,
    podName: body.podName,
    url: body.url,
    platform: body.platform,
    category: body.category,
    podDescription: body.podDescription,
    imageUrl: body.imageURL ?? null,
    thumbnailUrl: body.thumbnailURL ?? null,
    pdfUrl: body.pdfURL ?? null,
    videoUrl: body.videoURL ?? null,
    source: options.source ?? (creator.kind === "user" ? "platform" : creator.kind === "agent" ? "agent" : "chat"),
    slopCheckSkipped: options.slopCheckSkipped ?? false,
  };
}

export async function createPodDraft(db: OffchainDb, creator: PodCreator, body: PodDraftBody): Promise<{ id: string }> {
  const subnet = await resolveTargetSubnet(db, creator, body.subnetId);
  const row = await insertPodDraft(db, draftValues(creator, subnet, body));
  return { id: row.id };
}

// ---- mint ----

/**
 * Checks a mint txHash: PodMinted from the PodManager, sent by `wallet`, minted to `owner` in datanet
 * `subnetTokenId` (any datanet when undefined: a re-check of a pod republished since).
 */
export async function verifyPodMint(
  context: PlatformContext,
  {
    wallet,
    owner,
    subnetTokenId,
    txHash,
    receipt,
  }: {
    wallet: Address;
    owner?: Address;
    subnetTokenId: bigint | undefined;
    txHash: Hash;
    receipt?: TransactionReceipt;
  },
): Promise<{ tokenId: bigint; validityEpoch: bigint }> {
  const expectedOwner = owner ?? wallet;
  const { event } = await verifyOnChain(context, "PodManager", {
    hash: txHash,
    receipt,
    from: wallet,
    eventName: "PodMinted",
    matches: (args) =>
      isAddressEqual(args.owner, expectedOwner) && (subnetTokenId === undefined || args.subnetId === subnetTokenId),
    describe: `a pod owned by ${expectedOwner.toLowerCase()} in datanet ${subnetTokenId ?? "(any)"}`,
  });
  return { tokenId: event.args.podId, validityEpoch: event.args.validityEpoch };
}

const POD_LINKED = "This pod is already linked to another draft";

async function assertPodTokenUnlinked(db: Executor, tokenId: bigint): Promise<void> {
  if (await findPodDraftByTokenId(db, tokenId)) throw badRequest(POD_LINKED);
}

async function publishedTarget(db: Executor, draft: PodDraftRow): Promise<bigint> {
  const subnet = (await findSubnetDraft(db, draft.subnetId)) ?? (await findSubnetDraftByRef(db, draft.subnetId));
  if (!subnet?.tokenId) throw badRequest("The pod's datanet is not published yet");
  return BigInt(subnet.tokenId);
}

/** POST /me/pods/{id}/mint: verifies the txHash and links the draft to the minted token. */
export async function mintPodDraft(
  db: OffchainDb,
  context: PlatformContext,
  { creator, wallet, draftId, txHash }: { creator: PodCreator; wallet: Address; draftId: string; txHash: Hash },
): Promise<{ tokenId: bigint }> {
  const draft = await requireOwnedPodDraft(db, creator, draftId);
  await assertTransactionUnused(db, txHash);
  if (draft.tokenId !== null) throw badRequest("Pod is already minted");
  const subnetTokenId = await publishedTarget(db, draft);
  const { tokenId } = await verifyPodMint(context, { wallet, subnetTokenId, txHash });
  await assertPodTokenUnlinked(db, tokenId);
  await recordWithTransaction(
    db,
    { txHash, kind: TX_KINDS.podMint, recordId: draft.id },
    async (executor) => {
      if (!(await setPodMinted(executor, { draftId: draft.id, tokenId, txHash, wallet }))) {
        throw badRequest("Pod is already minted");
      }
    },
    POD_LINKED,
  );
  return { tokenId };
}

/**
 * Agent (and chat-server) flow: the pod create-draft fields plus the mint txHash. Verifies the txHash
 * (sent by `wallet`; minted to `owner`, default `wallet`), then stores the pod already minted.
 */
export async function createMintedPod(
  db: OffchainDb,
  context: PlatformContext,
  {
    creator,
    wallet,
    owner,
    body,
    txHash,
    source,
    slopCheckSkipped,
    receipt,
    alongside,
  }: {
    creator: PodCreator;
    wallet: Address;
    owner?: Address;
    body: PodDraftBody;
    txHash: Hash;
    source?: PodSource;
    slopCheckSkipped?: boolean;
    /** The transaction's receipt, when the caller already fetched it. */
    receipt?: TransactionReceipt;
    /** Committed with the pod (an agent adopting its wallet). */
    alongside?: Alongside;
  },
): Promise<{ id: string; tokenId: bigint }> {
  const subnet = await resolveTargetSubnet(db, creator, body.subnetId);
  if (!subnet.tokenId) throw badRequest("The pod's datanet is not published yet");
  await assertTransactionUnused(db, txHash);
  const { tokenId } = await verifyPodMint(context, {
    wallet,
    owner,
    subnetTokenId: BigInt(subnet.tokenId),
    txHash,
    receipt,
  });
  await assertPodTokenUnlinked(db, tokenId);
  const id = randomUUID();
  await recordWithTransaction(
    db,
    { txHash, kind: TX_KINDS.podMint, recordId: id, alongside },
    (executor) =>
      insertPodDraft(executor, {
        id,
        ...draftValues(creator, subnet, body, { source, slopCheckSkipped }),
        walletAddress: (owner ?? wallet).toLowerCase(),
        tokenId: tokenId.toString(),
        mintTxHash: txHash.toLowerCase(),
      }),
    POD_LINKED,
  );
  return { id, tokenId };
}

// ---- republish ----

/** Checks a republish txHash: PodRepublished for pod `podTokenId`, owner `wallet`, sent by `wallet`; returns its datanet. */
export async function verifyPodRepublish(
  context: PlatformContext,
  { wallet, podTokenId, txHash }: { wallet: Address; podTokenId: bigint; txHash: Hash },
): Promise<{ subnetTokenId: bigint; validityEpoch: bigint }> {
  const { event } = await verifyOnChain(context, "PodManager", {
    hash: txHash,
    from: wallet,
    eventName: "PodRepublished",
    matches: (args) => args.podId === podTokenId && isAddressEqual(args.owner, wallet),
    describe: `pod ${podTokenId} republished by the caller's wallet`,
  });
  return { subnetTokenId: event.args.subnetId, validityEpoch: event.args.validityEpoch };
}

/** POST /me/pods/{id}/republish: PodRepublished for this pod's token, sent by the caller's wallet. */
export async function republishPodDraft(
  db: OffchainDb,
  context: PlatformContext,
  { creator, wallet, draftId, txHash }: { creator: PodCreator; wallet: Address; draftId: string; txHash: Hash },
): Promise<{ id: string; subnetTokenId: bigint; validityEpoch: bigint }> {
  const draft = await requireOwnedPodDraft(db, creator, draftId);
  await assertTransactionUnused(db, txHash);
  if (draft.tokenId === null) throw badRequest("Pod is not minted yet");
  const { subnetTokenId, validityEpoch } = await verifyPodRepublish(context, {
    wallet,
    podTokenId: BigInt(draft.tokenId),
    txHash,
  });
  const target = await findSubnetDraftByTokenId(db, subnetTokenId);
  const id = await recordWithTransaction(db, { txHash, kind: TX_KINDS.podRepublish, recordId: draft.id }, (executor) =>
    insertPodRepublish(executor, { podDraftId: draft.id, txHash, subnetTokenId, subnetDraftId: target?.id }),
  );
  return { id, subnetTokenId, validityEpoch };
}

// ---- lookups for other resources ----

/** A publicly listed pod (minted, indexed, not banned, not archived) by id or tokenId; undefined otherwise. */
export function findListedPod(db: Executor, ref: string): Promise<PublicPodRow | undefined> {
  return findPublicPod(db, ref);
}
