/**
 * Datanet drafts: creation, and the verified on-chain steps (publish, fee and emission setters).
 * Used by the cookie routes (/me/subnets...) and by the agent routes, with the agent as creator.
 * The draft's lifecycle is the one pods share (draft-lifecycle.ts); every txHash goes through the
 * ledger (`record()`): checked on the chain before anything is recorded, and recorded in
 * `verified_transactions` in the same database transaction as the record it backs.
 */
import type { Address, Hash, TransactionReceipt } from "viem";
import { parseTokenAmount } from "../../../chain/units";
import type { SubnetParam } from "../../../src/lib/enums";
import type { OffchainDb } from "../../db/client";
import { badRequest } from "../../http/errors";
import type { LedgerChainAccess } from "../../ledger/chain";
import type { Alongside } from "../../ledger/kind";
import { record } from "../../ledger/ledger";
import { KINDS } from "../../ledger/registry";
import {
  findSubnetDraft,
  findSubnetDraftByTokenId,
  insertSubnetDraft,
  insertSubnetParameterUpdate,
  setSubnetPublished,
  type Executor,
  type NewSubnetDraft,
  type SubnetDraftRow,
} from "../repositories/subnets";
import type { SubnetDraftBody } from "../schemas/drafts";
import { createLinked, linkDraft, requireOwnedDraft, type Creator, type DraftLifecycle } from "./draft-lifecycle";
import { subnetNotFound } from "./refs";

export type { Creator } from "./draft-lifecycle";

// ---- drafts ----

export function ownsSubnetDraft(draft: SubnetDraftRow, creator: Creator): boolean {
  return creator.kind === "user" ? draft.ownerUserId === creator.userId : draft.createdByAgentId === creator.agentId;
}

function draftValues(creator: Creator, body: SubnetDraftBody) {
  return {
    ownerUserId: creator.kind === "user" ? creator.userId : null,
    createdByAgentId: creator.kind === "agent" ? creator.agentId : null,
    subnetCreatorType: body.subnetCreatorType,
    subnetName: body.subnetName,
    imageUrl: body.imageURL ?? null,
    subnetDescription: body.subnetDescription,
    onboardingPublishers: body.onboardingPublishers,
    onboardingVoters: body.onboardingVoters,
    subnetGoal: body.subnetGoal,
    nativeTokenAddress: body.nativeTokenAddress.toLowerCase(),
    nativeTokenSymbol: body.nativeTokenSymbol,
    nativeTokenDecimals: body.nativeTokenDecimals,
  };
}

export async function createSubnetDraft(
  db: OffchainDb,
  creator: Creator,
  body: SubnetDraftBody,
): Promise<{ id: string }> {
  const row = await insertSubnetDraft(db, draftValues(creator, body));
  return { id: row.id };
}

/** A datanet draft's lifecycle: linked to its token by a publish. */
const subnetDrafts: DraftLifecycle<SubnetDraftRow, Creator, Parameters<typeof KINDS.subnetPublish.verify>[2], NewSubnetDraft> = {
  kind: KINDS.subnetPublish,
  find: findSubnetDraft,
  findByTokenId: findSubnetDraftByTokenId,
  owns: ownsSubnetDraft,
  notFound: subnetNotFound,
  alreadyLinked: "Datanet is already published",
  tokenLinked: "This datanet is already linked to another draft",
  link: (executor, draft, { tokenId, txHash }) => setSubnetPublished(executor, { draftId: draft.id, tokenId, txHash }),
  insertLinked: (executor, row, { id, tokenId, txHash }) =>
    insertSubnetDraft(executor, { ...row, id, tokenId: tokenId.toString(), publishTxHash: txHash.toLowerCase() }),
};

/** The creator's draft, else 404 "Datanet not found" (also for other creators' drafts and malformed ids). */
export function requireOwnedSubnetDraft(db: Executor, creator: Creator, id: string): Promise<SubnetDraftRow> {
  return requireOwnedDraft(db, subnetDrafts, creator, id);
}

// ---- publish ----

/** POST /me/subnets/{id}/publish: SubnetPublished by the caller's wallet with the draft's primary token; links the draft to the token. */
export function publishSubnetDraft(
  db: OffchainDb,
  context: LedgerChainAccess,
  { creator, wallet, draftId, txHash }: { creator: Creator; wallet: Address; draftId: string; txHash: Hash },
): Promise<{ tokenId: bigint }> {
  return linkDraft(db, context, subnetDrafts, {
    owner: creator,
    draftId,
    txHash,
    claim: (draft) => ({ wallet, primaryToken: draft.nativeTokenAddress }),
  });
}

/**
 * Agent route POST /agents/{agentId}/subnets: the datanet create-draft fields plus the publish txHash.
 * Verifies the txHash first, then stores the datanet already published.
 */
export function createPublishedSubnet(
  db: OffchainDb,
  context: LedgerChainAccess,
  {
    creator,
    wallet,
    body,
    txHash,
    receipt,
    alongside,
  }: {
    creator: Creator;
    wallet: Address;
    body: SubnetDraftBody;
    txHash: Hash;
    /** The transaction's receipt, when the caller already fetched it. */
    receipt?: TransactionReceipt;
    alongside?: Alongside;
  },
): Promise<{ id: string; tokenId: bigint }> {
  return createLinked(db, context, subnetDrafts, {
    txHash,
    claim: { wallet, primaryToken: body.nativeTokenAddress, receipt, alongside },
    row: draftValues(creator, body),
  });
}

// ---- fee and emission setters ----

/** The five setters of POST /me/subnets/{id}/<path>: SubnetManager.Param and the body field carrying the amount. */
export const SUBNET_SETTERS = {
  accessFeeCore: { param: "AccessFeeCORE", field: "accessFeeCORE" },
  publishingFeeCore: { param: "PublishingFeeCORE", field: "publishingFeeCORE" },
  republishingFeeCore: { param: "RepublishingFeeCORE", field: "republishingFeeCORE" },
  emissionsCore: { param: "EmissionsPerEpochCORE", field: "emissionsPerEpochCORE" },
  emissionsPrimaryToken: { param: "EmissionsPerEpochPrimaryToken", field: "emissionsPerEpochPrimaryToken" },
} as const satisfies Record<string, { param: SubnetParam; field: string }>;

export type SubnetSetter = keyof typeof SUBNET_SETTERS;

/** Raw amount of a whole-token JSON number, exactly; 400 when it is not representable in 18 decimals. */
export function exactTokenAmount(field: string, value: number, decimals = 18): bigint {
  const raw = parseTokenAmount(value, decimals);
  if (raw === undefined) throw badRequest(`${field}: must be a non-negative amount with at most ${decimals} decimals`);
  return raw;
}

/**
 * A fee or emission setter: the txHash must carry SubnetParameterUpdated from the SubnetManager for
 * this datanet's token, with this parameter and exactly this value, sent by the caller's wallet.
 */
export async function recordSubnetParameter(
  db: OffchainDb,
  context: LedgerChainAccess,
  {
    creator,
    wallet,
    draftId,
    setter,
    amount,
    txHash,
  }: { creator: Creator; wallet: Address; draftId: string; setter: SubnetSetter; amount: number; txHash: Hash },
): Promise<{ id: string; value: bigint }> {
  const { param, field } = SUBNET_SETTERS[setter];
  const draft = await requireOwnedSubnetDraft(db, creator, draftId);
  // CORE has 18 decimals; primary-token amounts use the decimals declared for the datanet's token
  const decimals = setter === "emissionsPrimaryToken" ? draft.nativeTokenDecimals : 18;
  const value = exactTokenAmount(field, amount, decimals);
  const { result: id } = await record(db, context, KINDS.subnetParameter, {
    txHash,
    claim: () => {
      if (draft.tokenId === null) throw badRequest("Datanet is not published yet");
      return { wallet, subnetTokenId: BigInt(draft.tokenId), param, value, field };
    },
    recordId: draft.id,
    insert: (executor) => insertSubnetParameterUpdate(executor, { subnetDraftId: draft.id, param, value, txHash }),
  });
  return { id, value };
}
