import { and, asc, desc, eq, gt } from "drizzle-orm";
import type { OffchainDb } from "../../db/client";
import { chatMessages, chatSessions } from "../../db/offchain";

/** Chat sessions expire 30 days after they start (spec §3, §8). */
export const CHAT_SESSION_TTL_MS = 30 * 24 * 60 * 60 * 1000;

/** The session if it exists, belongs to `wallet` and has not expired; otherwise undefined (never says which). */
export async function findLiveSession(db: OffchainDb, sessionId: string, wallet: string, now: Date) {
  const [session] = await db
    .select()
    .from(chatSessions)
    .where(and(eq(chatSessions.id, sessionId), eq(chatSessions.walletAddress, wallet), gt(chatSessions.expiresAt, now)))
    .limit(1);
  return session;
}

/** The session's last `limit` messages, oldest first. */
export async function recentMessages(db: OffchainDb, sessionId: string, limit: number) {
  const rows = await db
    .select({ role: chatMessages.role, content: chatMessages.content, createdAt: chatMessages.createdAt })
    .from(chatMessages)
    .where(eq(chatMessages.sessionId, sessionId))
    .orderBy(desc(chatMessages.createdAt), asc(chatMessages.role))
    .limit(limit);
  return rows.reverse();
}

export async function allMessages(db: OffchainDb, sessionId: string) {
  return db
    .select({ role: chatMessages.role, content: chatMessages.content, createdAt: chatMessages.createdAt })
    .from(chatMessages)
    .where(eq(chatMessages.sessionId, sessionId))
    // The user's message and the reply to it never share a timestamp, but order them safely anyway.
    .orderBy(asc(chatMessages.createdAt), desc(chatMessages.role));
}

export interface Exchange {
  sessionId: string;
  /** Set when the session is new: it is created in the same transaction. */
  newSession?: { wallet: string; createdAt: Date; expiresAt: Date };
  user: { content: string; at: Date };
  assistant: { content: string; at: Date; mode: string; sources: unknown[] };
}

/** Stores the question and the reply (and the session when new) atomically. */
export async function saveExchange(db: OffchainDb, exchange: Exchange): Promise<void> {
  await db.transaction(async (tx) => {
    if (exchange.newSession) {
      await tx.insert(chatSessions).values({
        id: exchange.sessionId,
        walletAddress: exchange.newSession.wallet,
        createdAt: exchange.newSession.createdAt,
        updatedAt: exchange.assistant.at,
        expiresAt: exchange.newSession.expiresAt,
      });
    } else {
      await tx.update(chatSessions).set({ updatedAt: exchange.assistant.at }).where(eq(chatSessions.id, exchange.sessionId));
    }
    await tx.insert(chatMessages).values([
      { sessionId: exchange.sessionId, role: "user", content: exchange.user.content, createdAt: exchange.user.at },
      {
        sessionId: exchange.sessionId,
        role: "assistant",
        content: exchange.assistant.content,
        mode: exchange.assistant.mode,
        sources: exchange.assistant.sources,
        createdAt: exchange.assistant.at,
      },
    ]);
  });
}
