/**
 * Pod drafts: creation, and the verified on-chain steps (mint, republish). Used by the cookie routes
 * (/me/pods...), by the agent routes (creator = the agent) and by the chat server's mint (creator =
 * the wallet). The lifecycle is the one datanets share (draft-lifecycle.ts); every txHash goes
 * through the ledger (`record()`).
 */
import { randomUUID } from "node:crypto";
import type { Address, Hash, TransactionReceipt } from "viem";
import type { OffchainDb } from "../../db/client";
import { badRequest } from "../../http/errors";
import type { LedgerChainAccess } from "../../ledger/chain";
import type { Alongside } from "../../ledger/kind";
import type { PodMintClaim } from "../../ledger/kinds/pod-mint";
import { record, recordSent } from "../../ledger/ledger";
import { KINDS } from "../../ledger/registry";
import {
  findPodDraft,
  findPodDraftByTokenId,
  findPublicPod,
  insertPodDraft,
  insertPodRepublish,
  setPodMinted,
  type NewPodDraft,
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
import { createLinked, linkDraft, requireOwnedDraft, type Creator, type DraftLifecycle } from "./draft-lifecycle";
import { podNotFound } from "./refs";

/** Who creates a pod: a user, an agent, or (chat server mints) only a wallet. */
export type PodCreator = Creator | { kind: "wallet"; wallet: Address };

export type PodSource = "platform" | "agent" | "chat";

/** What a pod draft stores of its body (the datanet is resolved apart). */
type PodMetadata = Omit<PodDraftBody, "subnetId" | "agreeToTerms">;

export function ownsPodDraft(draft: PodDraftRow, creator: PodCreator): boolean {
  if (creator.kind === "user") return draft.ownerUserId === creator.userId;
  if (creator.kind === "agent") return draft.agentId === creator.agentId;
  return draft.ownerUserId === null && draft.agentId === null && draft.walletAddress === creator.wallet.toLowerCase();
}

/** A pod draft's lifecycle: linked to its token by a mint. */
const podDrafts: DraftLifecycle<PodDraftRow, PodCreator, PodMintClaim, NewPodDraft> = {
  kind: KINDS.podMint,
  find: findPodDraft,
  findByTokenId: findPodDraftByTokenId,
  owns: ownsPodDraft,
  notFound: podNotFound,
  alreadyLinked: "Pod is already minted",
  tokenLinked: "This pod is already linked to another draft",
  link: (executor, draft, { tokenId, txHash, claim }) =>
    setPodMinted(executor, { draftId: draft.id, tokenId, txHash, wallet: claim.wallet }),
  insertLinked: (executor, row, { id, tokenId, txHash, claim }) =>
    insertPodDraft(executor, {
      ...row,
      id,
      walletAddress: (claim.owner ?? claim.wallet).toLowerCase(),
      tokenId: tokenId.toString(),
      mintTxHash: txHash.toLowerCase(),
    }),
};

/** The creator's pod draft, else 404 "Pod not found" (also for other creators' pods and malformed ids). */
export function requireOwnedPodDraft(db: Executor, creator: PodCreator, id: string): Promise<PodDraftRow> {
  return requireOwnedDraft(db, podDrafts, creator, id);
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
  subnetId: string,
  body: PodMetadata,
  options: { source?: PodSource; slopCheckSkipped?: boolean } = {},
) {
  return {
    ownerUserId: creator.kind === "user" ? creator.userId : null,
    agentId: creator.kind === "agent" ? creator.agentId : null,
    walletAddress: creator.kind === "wallet" ? creator.wallet.toLowerCase() : null,
    subnetId,
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
  const row = await insertPodDraft(db, draftValues(creator, subnet.id, body));
  return { id: row.id };
}

// ---- mint ----

async function publishedTarget(db: Executor, draft: PodDraftRow): Promise<bigint> {
  const subnet = (await findSubnetDraft(db, draft.subnetId)) ?? (await findSubnetDraftByRef(db, draft.subnetId));
  if (!subnet?.tokenId) throw badRequest("The pod's datanet is not published yet");
  return BigInt(subnet.tokenId);
}

/** POST /me/pods/{id}/mint: PodMinted by the caller's wallet in the draft's datanet; links the draft to the token. */
export function mintPodDraft(
  db: OffchainDb,
  context: LedgerChainAccess,
  { creator, wallet, draftId, txHash }: { creator: PodCreator; wallet: Address; draftId: string; txHash: Hash },
): Promise<{ tokenId: bigint }> {
  return linkDraft(db, context, podDrafts, {
    owner: creator,
    draftId,
    txHash,
    claim: async (draft) => ({ wallet, subnetTokenId: await publishedTarget(db, draft) }),
  });
}

/**
 * Agent (and chat-server) flow: the pod create-draft fields plus the mint txHash. Verifies the txHash
 * (sent by `wallet`; minted to `owner`, default `wallet`), then stores the pod already minted.
 */
export async function createMintedPod(
  db: OffchainDb,
  context: LedgerChainAccess,
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
  return createLinked(db, context, podDrafts, {
    txHash,
    claim: { wallet, owner, subnetTokenId: BigInt(subnet.tokenId), receipt, alongside },
    row: draftValues(creator, subnet.id, body, { source, slopCheckSkipped }),
  });
}

/**
 * The chat server's mint: its server wallet sent `mintPodWithCORE(wallet, subnetId)` itself. With
 * the receipt, the mint is checked as any other (PodMinted to the wallet in the datanet, sent by
 * the server wallet); without it (it did not come in time) the pod is stored with no token id yet
 * (`recordSent`: the reconciler checks the transaction before tying it to its block). The datanet
 * is its draft when it has one, else its token id (the Platform API's privateSubnetId).
 */
export async function recordServerMint(
  db: OffchainDb,
  context: LedgerChainAccess,
  {
    serverWallet,
    wallet,
    subnet,
    txHash,
    receipt,
    body,
    slopCheckSkipped,
  }: {
    serverWallet: Address;
    wallet: Address;
    subnet: { ref: string; tokenId: bigint };
    txHash: Hash;
    receipt: TransactionReceipt | null;
    body: PodMetadata;
    slopCheckSkipped: boolean;
  },
): Promise<{ id: string; tokenId: bigint | null }> {
  const id = randomUUID();
  const creator: PodCreator = { kind: "wallet", wallet };
  const row = (tokenId: bigint | null) =>
    ({
      ...draftValues(creator, subnet.ref, body, { slopCheckSkipped }),
      id,
      tokenId: tokenId?.toString() ?? null,
      mintTxHash: txHash.toLowerCase(),
    }) satisfies NewPodDraft;
  if (!receipt) {
    await recordSent(db, KINDS.podMint, { txHash, recordId: id, insert: (executor) => insertPodDraft(executor, row(null)) });
    return { id, tokenId: null };
  }
  const { facts } = await record(db, context, KINDS.podMint, {
    txHash,
    claim: () => ({ wallet: serverWallet, owner: wallet, subnetTokenId: subnet.tokenId, receipt }),
    recordId: id,
    insert: (executor, { tokenId }) => insertPodDraft(executor, row(tokenId)),
  });
  return { id, tokenId: facts.tokenId };
}

// ---- republish ----

/** POST /me/pods/{id}/republish: PodRepublished for this pod's token, sent by the caller's wallet. */
export async function republishPodDraft(
  db: OffchainDb,
  context: LedgerChainAccess,
  { creator, wallet, draftId, txHash }: { creator: PodCreator; wallet: Address; draftId: string; txHash: Hash },
): Promise<{ id: string; subnetTokenId: bigint; validityEpoch: bigint }> {
  const draft = await requireOwnedPodDraft(db, creator, draftId);
  const { facts, result: id } = await record(db, context, KINDS.podRepublish, {
    txHash,
    claim: () => {
      if (draft.tokenId === null) throw badRequest("Pod is not minted yet");
      return { wallet, podTokenId: BigInt(draft.tokenId) };
    },
    recordId: draft.id,
    insert: async (executor, { subnetTokenId }) => {
      const target = await findSubnetDraftByTokenId(executor, subnetTokenId);
      return insertPodRepublish(executor, { podDraftId: draft.id, txHash, subnetTokenId, subnetDraftId: target?.id });
    },
  });
  const { subnetTokenId, validityEpoch } = facts;
  return { id, subnetTokenId, validityEpoch };
}

// ---- lookups for other resources ----

/** A publicly listed pod (minted, indexed, not banned, not archived) by id or tokenId; undefined otherwise. */
export function findListedPod(db: Executor, ref: string): Promise<PublicPodRow | undefined> {
  return findPublicPod(db, ref);
}
