/** SQL of the comment resource. */
import { desc, eq } from "drizzle-orm";
import type { OffchainDb } from "../../db/client";
import { comments, users } from "../../db/offchain";

export type CommentRow = {
  id: string;
  comment: string;
  createdAt: Date;
  username: string | null;
  walletAddress: string | null;
  avatarUrl: string | null;
};

/** The pod's `limit` most recent comments, returned oldest first (ties by id). */
export async function listPodComments(db: OffchainDb, podKey: string, limit: number): Promise<CommentRow[]> {
  const rows = await db
    .select({
      id: comments.id,
      comment: comments.comment,
      createdAt: comments.createdAt,
      username: users.username,
      walletAddress: users.walletAddress,
      avatarUrl: users.avatarUrl,
    })
    .from(comments)
    .innerJoin(users, eq(users.id, comments.userId))
    .where(eq(comments.podId, podKey))
    .orderBy(desc(comments.createdAt), desc(comments.id))
    .limit(limit);
  return rows.reverse();
}

export async function insertComment(
  db: OffchainDb,
  values: { podKey: string; userId: string; comment: string },
): Promise<string> {
  const [row] = await db
    .insert(comments)
    .values({ podId: values.podKey, userId: values.userId, comment: values.comment })
    .returning({ id: comments.id });
  return row!.id;
}
