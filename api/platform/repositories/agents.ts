/**
 * SQL of the agent resource (agents; their wallet bindings and the nonces those are signed over;
 * agent pods' archive flag; public datanet summaries).
 */
import { and, asc, eq, gt, isNotNull, isNull, lt, ne, or } from "drizzle-orm";
import { chain } from "../../db/chain";
import type { OffchainDb } from "../../db/client";
import { agents, agentWalletNonces, podDrafts, subnetDrafts } from "../../db/offchain";
import { subnetJoin, type Executor } from "./subnets";

export type AgentRow = typeof agents.$inferSelect;

export async function insertAgent(db: Executor, values: typeof agents.$inferInsert): Promise<AgentRow> {
  const [row] = await db.insert(agents).values(values).returning();
  return row!;
}

export async function updateAgent(
  db: OffchainDb,
  id: string,
  values: Partial<Pick<AgentRow, "name" | "description" | "thumbnailUrl" | "isOrchestrator">>,
): Promise<boolean> {
  const rows = await db.update(agents).set(values).where(eq(agents.id, id)).returning({ id: agents.id });
  return rows.length === 1;
}

export async function agentExists(db: OffchainDb, id: string): Promise<boolean> {
  const [row] = await db.select({ id: agents.id }).from(agents).where(eq(agents.id, id)).limit(1);
  return row !== undefined;
}

/** Binds `wallet` (lower case) to the agent, replacing any wallet it had; false when there is no such agent. */
export async function setAgentWallet(db: Executor, id: string, wallet: string, now: Date): Promise<boolean> {
  const rows = await db
    .update(agents)
    .set({ walletAddress: wallet, walletBoundAt: now })
    .where(eq(agents.id, id))
    .returning({ id: agents.id });
  return rows.length === 1;
}

/** Binds `wallet` to an agent that has none yet; false when it has one (or there is no such agent). */
export async function adoptAgentWallet(db: Executor, id: string, wallet: string, now: Date): Promise<boolean> {
  const rows = await db
    .update(agents)
    .set({ walletAddress: wallet, walletBoundAt: now })
    .where(and(eq(agents.id, id), isNull(agents.walletAddress)))
    .returning({ id: agents.id });
  return rows.length === 1;
}

/** Whether an agent other than `agentId` acts for `wallet` (lower case), bound or generated for it. */
export async function walletBoundToAnotherAgent(db: Executor, wallet: string, agentId: string): Promise<boolean> {
  const [row] = await db
    .select({ id: agents.id })
    .from(agents)
    .where(and(or(eq(agents.walletAddress, wallet), eq(agents.ownWalletAddress, wallet)), ne(agents.id, agentId)))
    .limit(1);
  return row !== undefined;
}

export type WalletNonceRow = typeof agentWalletNonces.$inferSelect;

export async function insertWalletNonce(
  db: OffchainDb,
  values: { nonce: string; walletAddress: string; agentId: string | null; message: string; expiresAt: Date },
): Promise<void> {
  await db.insert(agentWalletNonces).values(values);
}

export async function findWalletNonce(db: OffchainDb, nonce: string): Promise<WalletNonceRow | undefined> {
  const [row] = await db.select().from(agentWalletNonces).where(eq(agentWalletNonces.nonce, nonce)).limit(1);
  return row;
}

/** Marks the nonce used if it still is unused and unexpired; false when another request got there first. */
export async function consumeWalletNonce(db: Executor, nonce: string, now: Date): Promise<boolean> {
  const rows = await db
    .update(agentWalletNonces)
    .set({ usedAt: now })
    .where(
      and(eq(agentWalletNonces.nonce, nonce), isNull(agentWalletNonces.usedAt), gt(agentWalletNonces.expiresAt, now)),
    )
    .returning({ nonce: agentWalletNonces.nonce });
  return rows.length === 1;
}

/** Drops nonces that expired over a day ago (they can no longer be used or replayed). */
export async function pruneWalletNonces(db: OffchainDb, now: Date): Promise<void> {
  await db
    .delete(agentWalletNonces)
    .where(lt(agentWalletNonces.expiresAt, new Date(now.getTime() - 24 * 60 * 60 * 1000)));
}

/** Sets `archived_at` once (archiving again keeps the first time); false when the draft is not the agent's. */
export async function archiveAgentPod(db: OffchainDb, agentId: string, draftId: string): Promise<boolean> {
  const owned = and(eq(podDrafts.id, draftId), eq(podDrafts.agentId, agentId));
  const updated = await db
    .update(podDrafts)
    .set({ archivedAt: new Date() })
    .where(and(owned, isNull(podDrafts.archivedAt)))
    .returning({ id: podDrafts.id });
  if (updated.length === 1) return true;
  const [existing] = await db.select({ id: podDrafts.id }).from(podDrafts).where(owned).limit(1);
  return existing !== undefined;
}

/** Published datanets with metadata that the indexer knows (the public ones), oldest first. */
export async function listPublicSubnetSummaries(db: OffchainDb) {
  return db
    .select({
      id: subnetDrafts.id,
      name: subnetDrafts.subnetName,
      description: subnetDrafts.subnetDescription,
      tokenId: subnetDrafts.tokenId,
    })
    .from(subnetDrafts)
    .innerJoin(chain.datanet, subnetJoin)
    .where(isNotNull(subnetDrafts.tokenId))
    .orderBy(asc(chain.datanet.id));
}
