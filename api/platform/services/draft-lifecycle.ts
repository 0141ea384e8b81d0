/**
 * The lifecycle pods and datanets share: a draft is created by a user or an agent, seen only by its
 * creator (404 otherwise), and linked to the token an on-chain step made (a pod's mint, a
 * datanet's publish), either a draft linked later (cookie routes) or a record stored already
 * linked (agent routes). A token is linked to one draft only; the step's transaction is recorded
 * through the ledger (`record()`), which makes it back this draft only.
 */
import { randomUUID } from "node:crypto";
import type { Hash } from "viem";
import type { OffchainDb } from "../../db/client";
import { badRequest, type HttpError } from "../../http/errors";
import type { LedgerChainAccess } from "../../ledger/chain";
import type { RecordKind, Sender } from "../../ledger/kind";
import { record } from "../../ledger/ledger";
import type { Executor } from "../repositories/subnets";

/** Who creates and owns a draft: a signed-in user, or an agent (agent routes). */
export type Creator = { kind: "user"; userId: string } | { kind: "agent"; agentId: string };

export type DraftLifecycle<Row extends { id: string; tokenId: string | null }, Owner, Claim extends Sender, NewRow> = {
  /** The ledger kind of the step that links a draft to its token. */
  kind: RecordKind<Claim, { tokenId: bigint }>;
  find(db: Executor, id: string): Promise<Row | undefined>;
  findByTokenId(db: Executor, tokenId: bigint): Promise<Row | undefined>;
  owns(draft: Row, owner: Owner): boolean;
  notFound(): HttpError;
  /** 400 when the draft is linked already ("Pod is already minted"). */
  alreadyLinked: string;
  /** 400 when the token is linked to another draft. */
  tokenLinked: string;
  /** Links the draft to its token; false when another request linked it meanwhile. */
  link(executor: Executor, draft: Row, link: { tokenId: bigint; txHash: Hash; claim: Claim }): Promise<boolean>;
  /** Stores a record already linked to its token. */
  insertLinked(executor: Executor, row: NewRow, link: { id: string; tokenId: bigint; txHash: Hash; claim: Claim }): Promise<unknown>;
};

/** The owner's draft, else the lifecycle's 404 (also for other creators' drafts and malformed ids). */
export async function requireOwnedDraft<Row extends { id: string; tokenId: string | null }, Owner>(
  db: Executor,
  lifecycle: { find(db: Executor, id: string): Promise<Row | undefined>; owns(draft: Row, owner: Owner): boolean; notFound(): HttpError },
  owner: Owner,
  id: string,
): Promise<Row> {
  const draft = await lifecycle.find(db, id);
  if (!draft || !lifecycle.owns(draft, owner)) throw lifecycle.notFound();
  return draft;
}

async function assertTokenUnlinked(
  db: Executor,
  lifecycle: { findByTokenId(db: Executor, tokenId: bigint): Promise<unknown>; tokenLinked: string },
  tokenId: bigint,
): Promise<void> {
  if (await lifecycle.findByTokenId(db, tokenId)) throw badRequest(lifecycle.tokenLinked);
}

/**
 * The cookie routes' step (mint, publish): verifies the owner's transaction and links the owner's
 * draft to the token it made. `claim` runs once the hash is known unused and the draft unlinked.
 */
export async function linkDraft<Row extends { id: string; tokenId: string | null }, Owner, Claim extends Sender, NewRow>(
  db: OffchainDb,
  context: LedgerChainAccess,
  lifecycle: DraftLifecycle<Row, Owner, Claim, NewRow>,
  { owner, draftId, txHash, claim }: { owner: Owner; draftId: string; txHash: Hash; claim: (draft: Row) => Claim | Promise<Claim> },
): Promise<{ tokenId: bigint }> {
  const draft = await requireOwnedDraft(db, lifecycle, owner, draftId);
  let claimed: Claim;
  const { facts } = await record(db, context, lifecycle.kind, {
    txHash,
    claim: async () => {
      if (draft.tokenId !== null) throw badRequest(lifecycle.alreadyLinked);
      claimed = await claim(draft);
      return claimed;
    },
    accept: ({ tokenId }) => assertTokenUnlinked(db, lifecycle, tokenId),
    recordId: draft.id,
    insert: async (executor, { tokenId }) => {
      if (!(await lifecycle.link(executor, draft, { tokenId, txHash, claim: claimed }))) {
        throw badRequest(lifecycle.alreadyLinked);
      }
    },
    conflictMessage: lifecycle.tokenLinked,
  });
  return { tokenId: facts.tokenId };
}

/** The agent routes' step: verifies the transaction, then stores the record already linked to its token. */
export async function createLinked<Row extends { id: string; tokenId: string | null }, Owner, Claim extends Sender, NewRow>(
  db: OffchainDb,
  context: LedgerChainAccess,
  lifecycle: DraftLifecycle<Row, Owner, Claim, NewRow>,
  { txHash, claim, row }: { txHash: Hash; claim: Claim; row: NewRow },
): Promise<{ id: string; tokenId: bigint }> {
  const id = randomUUID();
  const { facts } = await record(db, context, lifecycle.kind, {
    txHash,
    claim: () => claim,
    accept: ({ tokenId }) => assertTokenUnlinked(db, lifecycle, tokenId),
    recordId: id,
    insert: (executor, { tokenId }) => lifecycle.insertLinked(executor, row, { id, tokenId, txHash, claim }),
    conflictMessage: lifecycle.tokenLinked,
  });
  return { id, tokenId: facts.tokenId };
}
