/**
 * Datanet drafts: creation, and the verified on-chain steps (publish, fee and emission setters).
 * Used by the cookie routes (/me/subnets...) and by the agent routes, with the agent as creator.
 * A txHash is checked on the chain (verifyOnChain) before anything is recorded, and recorded in
 * `verified_transactions` in the same database transaction as the record it backs.
 */
import { randomUUID } from "node:crypto";
import { isAddressEqual, type Address, type Hash, type TransactionReceipt } from "viem";
import { parseTokenAmount } from "../../../chain/units";
import { SUBNET_PARAMS, type SubnetParam } from "../../../src/lib/enums";
import type { OffchainDb } from "../../db/client";
import { isUniqueViolation, violatedConstraint } from "../../db/errors";
import { badRequest, HttpError } from "../../http/errors";
import { verifyOnChain, type PlatformContext } from "../context";
import {
  findSubnetDraft,
  findSubnetDraftByTokenId,
  insertSubnetDraft,
  insertSubnetParameterUpdate,
  setSubnetPublished,
  type Executor,
  type SubnetDraftRow,
} from "../repositories/subnets";
import { insertVerifiedTransaction, isTransactionUsed } from "../../ledger/records";
import type { SubnetDraftBody } from "../schemas/drafts";
import { subnetNotFound } from "./refs";

/** Who creates and owns a draft: a signed-in user, or an agent (agent routes). */
export type Creator = { kind: "user"; userId: string } | { kind: "agent"; agentId: string };

/** Kinds of `verified_transactions` rows written here and in pod-drafts.ts. */
export const TX_KINDS = {
  subnetPublish: "subnet-publish",
  subnetParameter: "subnet-parameter",
  podMint: "pod-mint",
  podRepublish: "pod-republish",
} as const;

export const TX_ALREADY_USED = "Transaction already used";

// ---- errors and races ----

/** What else commits with a record, in its transaction (an agent adopting its transaction's sender as its wallet). */
export type Alongside = (executor: Executor) => Promise<void>;

/**
 * Runs `record` in one transaction that also writes the txHash to `verified_transactions`; a txHash
 * already there (now or by a concurrent request) is 400 "Transaction already used". Other unique
 * violations become 400 `conflictMessage`.
 */
export async function recordWithTransaction<T>(
  db: OffchainDb,
  tx: { txHash: Hash; kind: string; recordId: string; alongside?: Alongside },
  record: (executor: Executor) => Promise<T>,
  conflictMessage = "Conflicting record",
): Promise<T> {
  const { alongside, ...verified } = tx;
  try {
    return await db.transaction(async (executor) => {
      await insertVerifiedTransaction(executor, verified);
      const result = await record(executor);
      await alongside?.(executor);
      return result;
    });
  } catch (error) {
    if (error instanceof HttpError) throw error;
    if (isUniqueViolation(error)) {
      const constraint = violatedConstraint(error) ?? "";
      if (constraint.startsWith("verified_transactions") || constraint.endsWith("tx_hash_unique")) {
        throw badRequest(TX_ALREADY_USED);
      }
      throw badRequest(conflictMessage);
    }
    throw error;
  }
}

/** 400 before any chain call when the hash already backs a record. */
export async function assertTransactionUnused(db: Executor, txHash: Hash): Promise<void> {
  if (await isTransactionUsed(db, txHash)) throw badRequest(TX_ALREADY_USED);
}

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

/** The creator's draft, else 404 "Datanet not found" (also for other creators' drafts and malformed ids). */
export async function requireOwnedSubnetDraft(db: Executor, creator: Creator, id: string): Promise<SubnetDraftRow> {
  const draft = await findSubnetDraft(db, id);
  if (!draft || !ownsSubnetDraft(draft, creator)) throw subnetNotFound();
  return draft;
}

// ---- publish ----

/** Checks a publish txHash: SubnetPublished from the SubnetManager, sent by `wallet`, owner `wallet`, this primary token. */
export async function verifySubnetPublish(
  context: PlatformContext,
  {
    wallet,
    primaryToken,
    txHash,
    receipt,
  }: { wallet: Address; primaryToken: string; txHash: Hash; receipt?: TransactionReceipt },
): Promise<{ tokenId: bigint }> {
  const { event } = await verifyOnChain(context, "SubnetManager", {
    hash: txHash,
    receipt,
    from: wallet,
    eventName: "SubnetPublished",
    matches: (args) => isAddressEqual(args.owner, wallet) && isAddressEqual(args.primaryToken, primaryToken as Address),
    describe: "the caller's wallet and the draft's nativeTokenAddress",
  });
  return { tokenId: event.args.subnetId };
}

const TOKEN_LINKED = "This datanet is already linked to another draft";

async function assertTokenUnlinked(db: Executor, tokenId: bigint): Promise<void> {
  if (await findSubnetDraftByTokenId(db, tokenId)) throw badRequest(TOKEN_LINKED);
}

/** POST /me/subnets/{id}/publish: verifies the txHash and links the draft to the published token. */
export async function publishSubnetDraft(
  db: OffchainDb,
  context: PlatformContext,
  { creator, wallet, draftId, txHash }: { creator: Creator; wallet: Address; draftId: string; txHash: Hash },
): Promise<{ tokenId: bigint }> {
  const draft = await requireOwnedSubnetDraft(db, creator, draftId);
  await assertTransactionUnused(db, txHash);
  if (draft.tokenId !== null) throw badRequest("Datanet is already published");
  const { tokenId } = await verifySubnetPublish(context, { wallet, primaryToken: draft.nativeTokenAddress, txHash });
  await assertTokenUnlinked(db, tokenId);
  await recordWithTransaction(
    db,
    { txHash, kind: TX_KINDS.subnetPublish, recordId: draft.id },
    async (executor) => {
      if (!(await setSubnetPublished(executor, { draftId: draft.id, tokenId, txHash }))) {
        throw badRequest("Datanet is already published");
      }
    },
    TOKEN_LINKED,
  );
  return { tokenId };
}

/**
 * Agent route POST /agents/{agentId}/subnets: the datanet create-draft fields plus the publish txHash.
 * Verifies the txHash first, then stores the datanet already published.
 */
export async function createPublishedSubnet(
  db: OffchainDb,
  context: PlatformContext,
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
  await assertTransactionUnused(db, txHash);
  const { tokenId } = await verifySubnetPublish(context, {
    wallet,
    primaryToken: body.nativeTokenAddress,
    txHash,
    receipt,
  });
  await assertTokenUnlinked(db, tokenId);
  const id = randomUUID();
  const row = await recordWithTransaction(
    db,
    { txHash, kind: TX_KINDS.subnetPublish, recordId: id, alongside },
    (executor) =>
      insertSubnetDraft(executor, {
        id,
        ...draftValues(creator, body),
        tokenId: tokenId.toString(),
        publishTxHash: txHash.toLowerCase(),
      }),
    TOKEN_LINKED,
  );
  return { id: row.id, tokenId };
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

/** Checks a setter txHash: SubnetParameterUpdated from the SubnetManager for this datanet, parameter and exact raw value, sent by `wallet`. */
export async function verifySubnetParameter(
  context: PlatformContext,
  {
    wallet,
    subnetTokenId,
    param,
    value,
    txHash,
    field = param,
  }: { wallet: Address; subnetTokenId: bigint; param: SubnetParam; value: bigint; txHash: Hash; field?: string },
): Promise<void> {
  const paramIndex = SUBNET_PARAMS.indexOf(param);
  await verifyOnChain(context, "SubnetManager", {
    hash: txHash,
    from: wallet,
    eventName: "SubnetParameterUpdated",
    matches: (args) => args.subnetId === subnetTokenId && Number(args.param) === paramIndex && args.value === value,
    describe: `datanet ${subnetTokenId}'s ${param} = ${field} (${value} in the token's smallest unit)`,
  });
}

/**
 * A fee or emission setter: the txHash must carry SubnetParameterUpdated from the SubnetManager for
 * this datanet's token, with this parameter and exactly this value, sent by the caller's wallet.
 */
export async function recordSubnetParameter(
  db: OffchainDb,
  context: PlatformContext,
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
  await assertTransactionUnused(db, txHash);
  if (draft.tokenId === null) throw badRequest("Datanet is not published yet");
  await verifySubnetParameter(context, { wallet, subnetTokenId: BigInt(draft.tokenId), param, value, txHash, field });
  const id = await recordWithTransaction(
    db,
    { txHash, kind: TX_KINDS.subnetParameter, recordId: draft.id },
    (executor) => insertSubnetParameterUpdate(executor, { subnetDraftId: draft.id, param, value, txHash }),
  );
  return { id, value };
}
