import { randomBytes } from "node:crypto";
import { and, eq, gt } from "drizzle-orm";
import type { Context } from "hono";
import type { OffchainDb } from "../../db/client";
import { walletSessions } from "../../db/offchain";
import { sha256Hex } from "../../lib/crypto";
import { serviceUnavailable, unauthorized } from "../errors";
import { bearerToken } from "./bearer";
import type { Authenticated } from "./factory";

/** A wallet session token is valid for 24 hours (spec §3, §8). */
export const WALLET_SESSION_TTL_MS = 24 * 60 * 60 * 1000;

export type WalletAddress = `0x${string}`;

/** 32 random bytes, base64url (43 characters). */
const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/** Issues a session for `wallet` (lower-case) and returns the token, which is never stored. */
export async function createWalletSession(
  db: OffchainDb,
  wallet: string,
  now: Date = new Date(),
): Promise<{ token: string; expiresAt: Date }> {
  const token = randomBytes(32).toString("base64url");
  const expiresAt = new Date(now.getTime() + WALLET_SESSION_TTL_MS);
  await db.insert(walletSessions).values({ tokenHash: sha256Hex(token), walletAddress: wallet.toLowerCase(), expiresAt });
  return { token, expiresAt };
}

/**
 * The wallet of `Authorization: Bearer <SESSION_TOKEN>` (spec §5), lower case: a missing,
 * malformed, unknown or expired token is 401 `{"error":"Unauthorized"}`.
 */
export async function authenticateWallet(c: Context, db: OffchainDb, now: Date): Promise<Authenticated<WalletAddress>> {
  const token = bearerToken(c.req.header("authorization"));
  if (!token || !TOKEN_PATTERN.test(token)) throw unauthorized();
  let rows: { walletAddress: string }[];
  try {
    rows = await db
      .select({ walletAddress: walletSessions.walletAddress })
      .from(walletSessions)
      .where(and(eq(walletSessions.tokenHash, sha256Hex(token)), gt(walletSessions.expiresAt, now)))
      .limit(1);
  } catch {
    throw serviceUnavailable("Database unavailable");
  }
  const wallet = rows[0]?.walletAddress;
  if (!wallet) throw unauthorized();
  return { principal: wallet as WalletAddress, identity: { kind: "wallet", id: wallet } };
}
