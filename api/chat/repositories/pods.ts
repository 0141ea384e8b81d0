import { and, asc, eq, inArray, isNull, sql } from "drizzle-orm";
import { chain } from "../../db/chain";
import type { OffchainDb } from "../../db/client";
import { podDrafts } from "../../db/offchain";

/** True when a pod draft already points at this post (any x.com / twitter.com URL of the status id). */
export async function isPostAlreadyMinted(db: OffchainDb, statusId: string): Promise<boolean> {
  const pattern = `^https?://([a-z]+\\.)?(x|twitter)\\.com/.*/status(es)?/${statusId}([/?#]|$)`;
  const rows = await db
    .select({ id: podDrafts.id })
    .from(podDrafts)
    .where(sql`${podDrafts.url} ~* ${pattern}`)
    .limit(1);
  return rows.length > 0;
}

/** The wallet's pods from the indexer (current owner). */
export async function walletPods(db: OffchainDb, wallet: string) {
  return db
    .select({
      id: chain.pod.id,
      mintTxHash: chain.pod.mintTxHash,
      subnetId: chain.pod.subnetId,
      createdAt: chain.pod.createdAt,
      ownerClaimedCore: chain.pod.ownerClaimedCore,
    })
    .from(chain.pod)
    .where(eq(chain.pod.owner, wallet as `0x${string}`))
    .orderBy(asc(chain.pod.id));
}

/**
 * Fills in `token_id` of chat-minted drafts whose mint receipt had not arrived when the mint
 * answered (`podId: null`), from the indexed pods' mint transactions.
 */
export async function backfillTokenIds(
  db: OffchainDb,
  wallet: string,
  pods: { id: bigint; mintTxHash: string }[],
): Promise<void> {
  const pending = await db
    .select({ id: podDrafts.id, mintTxHash: podDrafts.mintTxHash })
    .from(podDrafts)
    .where(and(eq(podDrafts.walletAddress, wallet), eq(podDrafts.source, "chat"), isNull(podDrafts.tokenId)));
  if (pending.length === 0) return;
  const byHash = new Map(pods.map((p) => [p.mintTxHash.toLowerCase(), p.id]));
  for (const draft of pending) {
    const tokenId = draft.mintTxHash ? byHash.get(draft.mintTxHash) : undefined;
    if (tokenId === undefined) continue;
    await db
      .update(podDrafts)
      .set({ tokenId: tokenId.toString() })
      .where(and(inArray(podDrafts.id, [draft.id]), isNull(podDrafts.tokenId)));
  }
}
