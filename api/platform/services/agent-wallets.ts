/**
 * The wallet an agent acts for. A user binds a wallet they control to an agent with the wallet's
 * signature (EIP-191 `personal_sign` for a plain key; ERC-1271 / ERC-6492 smart wallets through the
 * chain) of a message naming a server nonce. A nonce is single use, valid 5 minutes, and issued for
 * one wallet and either the registration of a new agent or one existing agent, so a signature
 * binds only what it names. Every agent route that records a txHash then accepts transactions the
 * bound wallet sent.
 *
 * One wallet may back several agents: each binding needs its own signature by that wallet, so only
 * the wallet's holder can add an agent to it (the platform has no other notion of "the same user").
 * Each transaction still backs one record only (`verified_transactions`).
 *
 * An agent also has the wallet generated for it at registration (unless it opted out); a live
 * client that registers with a name only and then records what the user's own key sent is bound
 * to the sender of the first such transaction, if no other agent acts for that wallet
 * (`agentWalletFor`).
 */
import { randomUUID } from "node:crypto";
import { getAddress, type Address, type Hash, type PublicClient, type TransactionReceipt } from "viem";
import { transactionReceipt } from "../../../chain/verify-tx";
import type { OffchainDb } from "../../db/client";
import { isUuid } from "../../db/refs";
import type { AuthenticatedAgent } from "../../http/auth/agent-bearer";
import { verifyWalletSignature } from "../../http/auth/wallet-signature";
import { badRequest, chainErrorToHttp, notFound } from "../../http/errors";
import type { PlatformRuntime } from "../app-services";
import {
  adoptAgentWallet,
  agentExists,
  consumeWalletNonce,
  findWalletNonce,
  insertWalletNonce,
  pruneWalletNonces,
  setAgentWallet,
  walletBoundToAnotherAgent,
} from "../repositories/agents";
import type { Executor } from "../repositories/subnets";

/** A binding nonce can be used within 5 minutes of being issued (as the chat server's sign-in nonce). */
export const WALLET_NONCE_TTL_MS = 5 * 60 * 1000;

/** Named in the message the wallet signs. */
export const WALLET_BINDING_SERVICE = "Data-Market Platform API";

export const NONCE_ALREADY_USED = "The nonce was already used";

/** The text the wallet signs: the service, the address, the agent (or a new one), the nonce and its expiry. */
export function walletBindingMessage({
  address,
  agentId,
  nonce,
  expiresAt,
}: {
  address: string;
  agentId: string | null;
  nonce: string;
  expiresAt: Date;
}): string {
  return [
    `${WALLET_BINDING_SERVICE} asks you to let an agent act for this wallet.`,
    "",
    `Address: ${getAddress(address.toLowerCase())}`,
    `Agent: ${agentId ?? "a new agent, registered with this nonce"}`,
    `Nonce: ${nonce}`,
    `Expires at: ${expiresAt.toISOString()}`,
    "",
    "Signing lets the agent's credential record transactions this wallet sends. It sends no transaction and costs nothing.",
  ].join("\n");
}

/** A nonce and the message to sign, for binding `walletAddress` to a new agent (no `agentId`) or to agent `agentId`. */
export async function issueWalletNonce(
  db: OffchainDb,
  { walletAddress, agentId, now = new Date() }: { walletAddress: string; agentId?: string; now?: Date },
): Promise<{ nonce: string; message: string; expiresAt: string }> {
  if (agentId !== undefined && (!isUuid(agentId) || !(await agentExists(db, agentId.toLowerCase())))) {
    throw notFound("Agent not found");
  }
  const wallet = walletAddress.toLowerCase();
  const agent = agentId?.toLowerCase() ?? null;
  const nonce = randomUUID();
  const expiresAt = new Date(now.getTime() + WALLET_NONCE_TTL_MS);
  const message = walletBindingMessage({ address: wallet, agentId: agent, nonce, expiresAt });
  await insertWalletNonce(db, { nonce, walletAddress: wallet, agentId: agent, message, expiresAt });
  if (Math.random() < 0.02) pruneWalletNonces(db, now).catch(() => undefined);
  return { nonce, message, expiresAt: expiresAt.toISOString() };
}

/** What a client sends to bind a wallet: the address, the nonce it was issued and the wallet's signature of its message. */
export type WalletProof = { walletAddress: string; nonce: string; signature: string };

/** A checked proof: the wallet (lower case) and the nonce to consume with the binding. */
export type VerifiedWalletProof = { wallet: Address; nonce: string };

/** The chain client, for smart-wallet signatures; none when no chain is configured (plain keys still verify). */
function signatureClient(context: PlatformRuntime): PublicClient | undefined {
  try {
    return context.chain().client;
  } catch {
    return undefined;
  }
}

/**
 * Checks that `proof` binds its wallet to `agentId` (null: a new agent): the nonce exists, was
 * issued for this wallet and this agent, is unused and unexpired, and the signature is the
 * wallet's signature of the nonce's message. Each failure is a 400 naming the reason.
 */
export async function verifyWalletProof(
  db: OffchainDb,
  context: PlatformRuntime,
  proof: WalletProof,
  { agentId, now = new Date() }: { agentId: string | null; now?: Date },
): Promise<VerifiedWalletProof> {
  const wallet = proof.walletAddress.toLowerCase() as Address;
  const issued = isUuid(proof.nonce) ? await findWalletNonce(db, proof.nonce.toLowerCase()) : undefined;
  if (!issued) throw badRequest("Unknown nonce: request one with POST /agents/wallet-nonce");
  if (issued.walletAddress !== wallet) throw badRequest("The nonce was issued for another wallet");
  if (issued.agentId !== agentId) {
    throw badRequest(
      issued.agentId === null
        ? "The nonce was issued to register a new agent, not for this one"
        : agentId === null
          ? "The nonce was issued for an existing agent: bind it with POST /agents/{agentId}/wallet"
          : "The nonce was issued for another agent",
    );
  }
  if (issued.usedAt !== null) throw badRequest(NONCE_ALREADY_USED);
  if (issued.expiresAt <= now) throw badRequest("The nonce expired: request a new one");
  const verified = await verifyWalletSignature({
    address: wallet,
    message: issued.message,
    signature: proof.signature,
    publicClient: signatureClient(context),
  });
  if (!verified) throw badRequest("The signature is not this wallet's signature of the nonce's message");
  return { wallet, nonce: issued.nonce };
}

/** Consumes the proof's nonce inside the binding's transaction (a concurrent use of it rolls the binding back). */
export async function consumeProof(executor: Executor, proof: VerifiedWalletProof, now: Date): Promise<void> {
  if (!(await consumeWalletNonce(executor, proof.nonce, now))) throw badRequest(NONCE_ALREADY_USED);
}

/** POST /agents/{agentId}/wallet: binds the proven wallet to the agent, replacing the wallet it had. */
export async function bindAgentWallet(
  db: OffchainDb,
  context: PlatformRuntime,
  agentId: string,
  proof: WalletProof,
  now = new Date(),
): Promise<{ id: string; walletAddress: Address }> {
  const verified = await verifyWalletProof(db, context, proof, { agentId, now });
  await db.transaction(async (executor) => {
    await consumeProof(executor, verified, now);
    if (!(await setAgentWallet(executor, agentId, verified.wallet, now))) throw notFound("Agent not found");
  });
  return { id: agentId, walletAddress: verified.wallet };
}

/** The wallet an agent records a transaction for, and how to verify and store that record. */
export type AgentWallet = {
  wallet: Address;
  /**
   * For an agent without a wallet: the transaction's receipt, fetched to learn the sender. The
   * verification is handed it, so it asks the RPC for it no second time.
   */
  receipt?: TransactionReceipt;
  /** Binds the sender to an agent without a wallet, inside the transaction that stores the record. */
  alongside?: (executor: Executor) => Promise<void>;
};

/**
 * The wallet whose transaction `txHash` the agent records: the wallet generated for it at
 * registration or the wallet bound to it, whichever sent the transaction. An agent with a bound
 * wallet and no generated one: the bound wallet, no receipt needed. Otherwise the transaction's
 * sender is learnt from its receipt (handed on, so the verification asks the RPC no second time).
 * An agent with no bound wallet (the live clients register with a name only, then record what the
 * user's own key sent) is bound to a sender that is not its generated wallet, unless another agent
 * acts for that wallet: adding an agent to a bound wallet needs the wallet's signature (POST
 * /agents/{agentId}/wallet). The sender is adopted in the record's own transaction (`alongside`).
 */
export async function agentWalletFor(
  db: OffchainDb,
  context: PlatformRuntime,
  agent: Pick<AuthenticatedAgent, "id" | "walletAddress" | "ownWalletAddress">,
  txHash: Hash,
  now = new Date(),
): Promise<AgentWallet> {
  if (agent.walletAddress && !agent.ownWalletAddress) return { wallet: agent.walletAddress };
  let receipt: TransactionReceipt;
  try {
    receipt = await transactionReceipt(context.chain().client, txHash);
  } catch (error) {
    throw chainErrorToHttp(error);
  }
  const sender = receipt.from.toLowerCase() as Address;
  if (sender === agent.ownWalletAddress || sender === agent.walletAddress) return { wallet: sender, receipt };
  // a bound wallet is replaced only with its signature: the verification refuses this sender
  if (agent.walletAddress) return { wallet: agent.walletAddress, receipt };
  if (await walletBoundToAnotherAgent(db, sender, agent.id)) {
    throw badRequest(
      `The transaction's sender acts for another agent; bind it to this one with its signature: POST /agents/${agent.id}/wallet`,
    );
  }
  return {
    wallet: sender,
    receipt,
    alongside: async (executor) => {
      // a concurrent first record of the same agent may have bound it already: the first one wins
      await adoptAgentWallet(executor, agent.id, sender, now);
    },
  };
}
