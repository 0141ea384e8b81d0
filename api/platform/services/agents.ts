/**
 * Agents: registration (a new identity and credential on every call, with the wallet it acts for
 * when one is proven or requested), profile updates, and archiving the pods they created.
 */
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import type { OffchainDb } from "../../db/client";
import { generateAgentCredential } from "../../http/auth/agent-bearer";
import { sha256Hex } from "../../lib/crypto";
import { badRequest, notFound } from "../../http/errors";
import type { PlatformRuntime } from "../app-services";
import { archiveAgentPod, insertAgent, updateAgent } from "../repositories/agents";
import { findPodDraftByRef } from "../repositories/pods";
import { consumeProof, verifyWalletProof, type VerifiedWalletProof } from "./agent-wallets";
import { podNotFound } from "./refs";

export type AgentProfileInput = {
  name: string;
  description: string;
  thumbnailURL?: string | null;
  isOrchestrator?: boolean;
};

export type RegisterAgentInput = AgentProfileInput & {
  /** The wallet to bind, with the nonce from POST /agents/wallet-nonce and the wallet's signature of its message. */
  walletAddress?: string;
  nonce?: string;
  signature?: string;
  /** Default true without a proven wallet: the server generates a new wallet and returns its key once; false opts out. */
  createWallet?: boolean;
};

/**
 * Creates the agent (spec §4.5 rule 2: a new id, credential and wallet on every call). Its wallet
 * is a newly generated one whose private key is returned here once and never stored (the default),
 * or the proven `walletAddress` (the nonce is consumed with the insert), or none with
 * `createWallet: false` (bound later by signature or by its first recorded transaction). The
 * credential is stored as its sha-256 only and returned once.
 */
export async function registerAgent(db: OffchainDb, context: PlatformRuntime, input: RegisterAgentInput) {
  const now = new Date();
  let proof: VerifiedWalletProof | undefined;
  let privateKey: `0x${string}` | undefined;
  let walletAddress: string | null = null;
  let ownWalletAddress: string | null = null;
  if (input.walletAddress !== undefined) {
    proof = await verifyWalletProof(
      db,
      context,
      { walletAddress: input.walletAddress, nonce: input.nonce ?? "", signature: input.signature ?? "" },
      { agentId: null, now },
    );
    walletAddress = proof.wallet;
  } else if (input.createWallet !== false) {
    privateKey = generatePrivateKey();
    ownWalletAddress = privateKeyToAccount(privateKey).address.toLowerCase();
  }
  const credential = generateAgentCredential();
  const row = await db.transaction(async (executor) => {
    if (proof) await consumeProof(executor, proof, now);
    return insertAgent(executor, {
      name: input.name,
      description: input.description,
      thumbnailUrl: input.thumbnailURL ?? null,
      isOrchestrator: input.isOrchestrator ?? false,
      walletAddress,
      walletBoundAt: walletAddress ? now : null,
      ownWalletAddress,
      credentialHash: sha256Hex(credential),
    });
  });
  return {
    id: row.id,
    apiKey: credential,
    accessToken: credential,
    walletAddress: row.ownWalletAddress ?? row.walletAddress,
    ...(privateKey ? { privateKey } : {}),
    isOrchestrator: row.isOrchestrator,
    isOrquestra: row.isOrchestrator,
    name: row.name,
    description: row.description,
    thumbnailURL: row.thumbnailUrl,
  };
}

export async function updateAgentProfile(
  db: OffchainDb,
  agentId: string,
  input: Partial<AgentProfileInput>,
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
    throw podNotFound();
  }
  return draft.id;
}
