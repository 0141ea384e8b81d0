import { and, asc, eq, inArray, isNull, sql } from "drizzle-orm";
import { chain } from "../../db/chain";
import type { OffchainDb } from "../../db/client";
import { podDrafts, verifiedTransactions } from "../../db/offchain";

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

export interface ChatPodRecord {
  wallet: string;
  subnetId: string;
  tokenId: string | null;
  mintTxHash: string;
  title: string;
  description: string;
  url: string;
  category: string;
  slopCheckSkipped: boolean;
}

/**
 * The pod's off-chain metadata, so the Platform API's pod routes show its name, description and
 * URL: a `pod_drafts` row (source `chat`, owned by the wallet) and the `verified_transactions`
 * row that ties the mint transaction to it.
 */
export async function recordChatPod(db: OffchainDb, pod: ChatPodRecord): Promise<string> {
  return db.transaction(async (tx) => {
    const [draft] = await tx
      .insert(podDrafts)
      .values({
        walletAddress: pod.wallet,
        subnetId: pod.subnetId,
        podName: pod.title,
        url: pod.url,
        platform: "x",
        category: pod.category,
        podDescription: pod.description,
        tokenId: pod.tokenId,
        mintTxHash: pod.mintTxHash.toLowerCase(),
        slopCheckSkipped: pod.slopCheckSkipped,
        source: "chat",
      })
      .returning({ id: podDrafts.id });
    await tx
      .insert(verifiedTransactions)
      .values({ txHash: pod.mintTxHash.toLowerCase(), kind: "pod-mint", recordId: draft!.id })
      .onConflictDoNothing();
    return draft!.id;
  });
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
