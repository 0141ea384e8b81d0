/**
 * Agents: registration (a new identity, credential and wallet on every call), profile updates,
 * and archiving the pods they created.
 */
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import type { OffchainDb } from "../../db/client";
import { generateAgentCredential } from "../../http/auth/agent-bearer";
import { sha256Hex } from "../../lib/crypto";
import { badRequest, notFound } from "../../http/errors";
import { archiveAgentPod, insertAgent, updateAgent } from "../repositories/agents";
import { findPodDraftByRef } from "../repositories/pods";

export type RegisterAgentInput = {
  name: string;
  description: string;
  thumbnailURL?: string | null;
  isOrchestrator?: boolean;
};

/**
 * Creates the agent with a fresh wallet. The credential is stored as its sha-256 only and the
 * private key not at all: both are returned here, once.
 */
export async function registerAgent(db: OffchainDb, input: RegisterAgentInput) {
  const privateKey = generatePrivateKey();
  const walletAddress = privateKeyToAccount(privateKey).address.toLowerCase();
  const credential = generateAgentCredential();
  const row = await insertAgent(db, {
    name: input.name,
    description: input.description,
    thumbnailUrl: input.thumbnailURL ?? null,
    isOrchestrator: input.isOrchestrator ?? false,
    walletAddress,
    credentialHash: sha256Hex(credential),
  });
  return {
    id: row.id,
    apiKey: credential,
    accessToken: credential,
    walletAddress,
    privateKey,
    isOrchestrator: row.isOrchestrator,
    name: row.name,
    description: row.description,
    thumbnailURL: row.thumbnailUrl,
  };
}

export async function updateAgentProfile(
  db: OffchainDb,
  agentId: string,
  input: Partial<RegisterAgentInput>,
): Promise<void> {
  const values = {
    ...(input.name !== undefined ? { name: input.name } : {}),
    ...(input.description !== undefined ? { description: input.description } : {}),
    ...(input.thumbnailURL !== undefined ? { thumbnailUrl: input.thumbnailURL } : {}),
    ...(input.isOrchestrator !== undefined ? { isOrchestrator: input.isOrchestrator } : {}),
  };
  if (Object.keys(values).length === 0) throw badRequest("Body must contain at least one field");
  if (!(await updateAgent(db, agentId, values))) throw notFound("Agent not found");
}

/** Archives a pod the agent created (by id or tokenId); 404 for any other pod. Returns the pod's id. */
export async function archivePodOfAgent(db: OffchainDb, agentId: string, podRef: string): Promise<string> {
  const draft = await findPodDraftByRef(db, podRef);
  if (!draft || draft.agentId !== agentId || !(await archiveAgentPod(db, agentId, draft.id))) {
    throw notFound("Pod not found");
  }
  return draft.id;
}
