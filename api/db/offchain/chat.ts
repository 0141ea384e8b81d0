import { sql } from "drizzle-orm";
import { check, index, jsonb, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { createdAt, lowerCase, offchain, updatedAt } from "./shared";

/** Sign-in nonces of the wallet flow; single use, short-lived. */
export const walletNonces = offchain.table(
  "wallet_nonces",
  {
    nonce: uuid("nonce").primaryKey().defaultRandom(),
    walletAddress: text("wallet_address").notNull(),
    message: text("message").notNull(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
    usedAt: timestamp("used_at", { withTimezone: true }),
    createdAt: createdAt(),
  },
  (t) => [
    check("wallet_nonces_wallet_address_lower_case", lowerCase(t.walletAddress)),
    index("wallet_nonces_expires_idx").on(t.expiresAt),
  ],
);

export const walletSessions = offchain.table(
  "wallet_sessions",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    /** sha-256 hex of the session token; the token itself is never stored. */
    tokenHash: text("token_hash").notNull().unique(),
    walletAddress: text("wallet_address").notNull(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    check("wallet_sessions_wallet_address_lower_case", lowerCase(t.walletAddress)),
    index("wallet_sessions_wallet_address_idx").on(t.walletAddress),
    index("wallet_sessions_expires_idx").on(t.expiresAt),
  ],
);

export const chatSessions = offchain.table(
  "chat_sessions",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    walletAddress: text("wallet_address").notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
  },
  (t) => [
    check("chat_sessions_wallet_address_lower_case", lowerCase(t.walletAddress)),
    index("chat_sessions_wallet_address_idx").on(t.walletAddress, t.updatedAt),
  ],
);

export const chatMessages = offchain.table(
  "chat_messages",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    sessionId: uuid("session_id")
      .notNull()
      .references(() => chatSessions.id, { onDelete: "cascade" }),
    role: text("role").notNull(),
    content: text("content").notNull(),
    /** rag | subnet-creation | minting | emissions, chosen by the server. */
    mode: text("mode"),
    sources: jsonb("sources").$type<unknown[]>(),
    createdAt: createdAt(),
  },
  (t) => [
    check("chat_messages_role", sql`${t.role} in ('user', 'assistant')`),
    index("chat_messages_session_created_idx").on(t.sessionId, t.createdAt),
  ],
);
