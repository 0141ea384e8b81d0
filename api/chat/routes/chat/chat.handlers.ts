import { randomUUID } from "node:crypto";
import { isUuid } from "../../../db/refs";
import { notFound, withDatabase } from "../../../http/errors";
import type { ChatHandler } from "../../app-services";
import { allMessages, CHAT_SESSION_TTL_MS, findLiveSession, recentMessages, saveExchange } from "../../repositories/chat";
import type * as routes from "./chat.routes";

const HISTORY_FOR_ASSISTANT = 20;

/** Same answer for unknown, expired and other wallets' sessions: nothing about them is revealed. */
const sessionNotFound = () => notFound("Session not found");

export const chat: ChatHandler<typeof routes.chatRoute> = async (c) => {
  const ctx = c.get("services");
  const wallet = c.get("wallet");
  const { message, sessionId: requested } = c.req.valid("json");
  const receivedAt = ctx.now();

  let sessionId: string;
  let history: { role: "user" | "assistant"; content: string }[] = [];
  let newSession: { wallet: string; createdAt: Date; expiresAt: Date } | undefined;
  if (requested !== undefined) {
    const session = await withDatabase(() => findLiveSession(ctx.db, requested.toLowerCase(), wallet, receivedAt));
    if (!session) throw sessionNotFound();
    sessionId = session.id;
    const rows = await withDatabase(() => recentMessages(ctx.db, session.id, HISTORY_FOR_ASSISTANT));
    history = rows.map((row) => ({ role: row.role === "assistant" ? "assistant" : "user", content: row.content }));
  } else {
    sessionId = randomUUID();
    newSession = { wallet, createdAt: receivedAt, expiresAt: new Date(receivedAt.getTime() + CHAT_SESSION_TTL_MS) };
  }

  const reply = await ctx.assistant.reply({ wallet, message, history });
  const repliedAt = new Date(Math.max(ctx.now().getTime(), receivedAt.getTime() + 1));
  await withDatabase(() =>
    saveExchange(ctx.db, {
      sessionId,
      newSession,
      user: { content: message, at: receivedAt },
      assistant: { content: reply.response, at: repliedAt, mode: reply.mode, sources: reply.sources },
    }),
  );
  return c.json({ sessionId, response: reply.response, sources: reply.sources, mode: reply.mode }, 200);
};

export const history: ChatHandler<typeof routes.historyRoute> = async (c) => {
  const ctx = c.get("services");
  const wallet = c.get("wallet");
  const { sessionId } = c.req.valid("param");
  if (!isUuid(sessionId)) throw sessionNotFound();
  const session = await withDatabase(() => findLiveSession(ctx.db, sessionId.toLowerCase(), wallet, ctx.now()));
  if (!session) throw sessionNotFound();
  const messages = await withDatabase(() => allMessages(ctx.db, session.id));
  return c.json(
    {
      sessionId: session.id,
      messages: messages.map((m) => ({
        role: m.role === "assistant" ? ("assistant" as const) : ("user" as const),
        content: m.content,
        timestamp: m.createdAt.toISOString(),
      })),
      createdAt: session.createdAt.toISOString(),
      updatedAt: session.updatedAt.toISOString(),
    },
    200,
  );
};
