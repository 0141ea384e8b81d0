/** SQL of the agent resource (agents; agent pods' archive flag; public datanet summaries). */
import { and, asc, eq, isNotNull, isNull } from "drizzle-orm";
import { chain } from "../../db/chain";
import type { OffchainDb } from "../../db/client";
import { agents, podDrafts, subnetDrafts } from "../../db/offchain";

export type AgentRow = typeof agents.$inferSelect;

export async function insertAgent(db: OffchainDb, values: typeof agents.$inferInsert): Promise<AgentRow> {
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
    .innerJoin(chain.datanet, eq(chain.datanet.id, subnetDrafts.tokenId))
    .where(isNotNull(subnetDrafts.tokenId))
    .orderBy(asc(chain.datanet.id));
}
