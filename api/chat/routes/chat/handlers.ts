import { randomUUID } from "node:crypto";
import type { RouteHandler } from "@hono/zod-openapi";
import { notFound, serviceUnavailable } from "../../../http/errors";
import type { AppEnv } from "../../../http/types";
import { walletOf, type ChatContext } from "../../context";
import { allMessages, CHAT_SESSION_TTL_MS, findLiveSession, recentMessages, saveExchange } from "./queries";
import type { chatRoute, historyRoute } from "./routes";

const HISTORY_FOR_ASSISTANT = 20;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Same answer for unknown, expired and other wallets' sessions: nothing about them is revealed. */
const sessionNotFound = () => notFound("Session not found");

async function database<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch {
    throw serviceUnavailable("Database unavailable");
  }
}

export function chatHandler(ctx: ChatContext): RouteHandler<typeof chatRoute, AppEnv> {
  return async (c) => {
    const wallet = walletOf(c);
    const { message, sessionId: requested } = c.req.valid("json");
    const receivedAt = ctx.now();

    let sessionId: string;
    let history: { role: "user" | "assistant"; content: string }[] = [];
    let newSession: { wallet: string; createdAt: Date; expiresAt: Date } | undefined;
    if (requested !== undefined) {
      const session = await database(() => findLiveSession(ctx.db, requested.toLowerCase(), wallet, receivedAt));
      if (!session) throw sessionNotFound();
      sessionId = session.id;
      const rows = await database(() => recentMessages(ctx.db, session.id, HISTORY_FOR_ASSISTANT));
      history = rows.map((row) => ({ role: row.role === "assistant" ? "assistant" : "user", content: row.content }));
    } else {
      sessionId = randomUUID();
      newSession = { wallet, createdAt: receivedAt, expiresAt: new Date(receivedAt.getTime() + CHAT_SESSION_TTL_MS) };
    }

    const reply = await ctx.assistant.reply({ wallet, message, history });
    const repliedAt = new Date(Math.max(ctx.now().getTime(), receivedAt.getTime() + 1));
    await database(() =>
      saveExchange(ctx.db, {
        sessionId,
        newSession,
        user: { content: message, at: receivedAt },
        assistant: { content: reply.response, at: repliedAt, mode: reply.mode, sources: reply.sources },
      }),
    );
    return c.json({ sessionId, response: reply.response, sources: reply.sources, mode: reply.mode }, 200);
  };
}

export function historyHandler(ctx: ChatContext): RouteHandler<typeof historyRoute, AppEnv> {
  return async (c) => {
    const wallet = walletOf(c);
    const { sessionId } = c.req.valid("param");
    if (!UUID.test(sessionId)) throw sessionNotFound();
    const session = await database(() => findLiveSession(ctx.db, sessionId.toLowerCase(), wallet, ctx.now()));
    if (!session) throw sessionNotFound();
    const messages = await database(() => allMessages(ctx.db, session.id));
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
}
