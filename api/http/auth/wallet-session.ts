import { createHash, randomBytes } from "node:crypto";
import { and, eq, gt } from "drizzle-orm";
import { createMiddleware } from "hono/factory";
import type { OffchainDb } from "../../db/client";
import { walletSessions } from "../../db/offchain";
import { serviceUnavailable, unauthorized } from "../errors";
import type { AppEnv } from "../types";

/** A wallet session token is valid for 24 hours (spec §3, §8). */
export const WALLET_SESSION_TTL_MS = 24 * 60 * 60 * 1000;

export type WalletAddress = `0x${string}`;

export type WalletEnv = AppEnv & { Variables: AppEnv["Variables"] & { wallet: WalletAddress } };

/** 32 random bytes, base64url (43 characters). */
const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/** sha-256 hex: what is stored instead of the token. */
export function hashSessionToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

/** Issues a session for `wallet` (lower-case) and returns the token, which is never stored. */
export async function createWalletSession(
  db: OffchainDb,
  wallet: string,
  now: Date = new Date(),
): Promise<{ token: string; expiresAt: Date }> {
  const token = randomBytes(32).toString("base64url");
  const expiresAt = new Date(now.getTime() + WALLET_SESSION_TTL_MS);
  await db.insert(walletSessions).values({ tokenHash: hashSessionToken(token), walletAddress: wallet.toLowerCase(), expiresAt });
  return { token, expiresAt };
}

/**
 * `Authorization: Bearer <SESSION_TOKEN>` (spec §5): a missing, malformed, unknown or expired
 * token is 401 `{"error":"Unauthorized"}`. Sets `wallet` (lower-case) and the request's
 * `identity` (kind `wallet`) for per-identity rate limits.
 */
export function walletSession(db: OffchainDb, options: { now?: () => Date } = {}) {
  const now = options.now ?? (() => new Date());
  return createMiddleware<WalletEnv>(async (c, next) => {
    const header = c.req.header("authorization") ?? "";
    const token = /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1];
    if (!token || !TOKEN_PATTERN.test(token)) throw unauthorized();
    let rows: { walletAddress: string }[];
    try {
      rows = await db
        .select({ walletAddress: walletSessions.walletAddress })
        .from(walletSessions)
        .where(and(eq(walletSessions.tokenHash, hashSessionToken(token)), gt(walletSessions.expiresAt, now())))
        .limit(1);
    } catch {
      throw serviceUnavailable("Database unavailable");
    }
    const wallet = rows[0]?.walletAddress;
    if (!wallet) throw unauthorized();
    c.set("wallet", wallet as WalletAddress);
    c.set("identity", { kind: "wallet", id: wallet });
    await next();
  });
}
