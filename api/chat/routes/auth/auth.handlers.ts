import { randomUUID } from "node:crypto";
import { isUuid } from "../../../db/refs";
import { getAddress } from "viem";
import { createWalletSession } from "../../../http/auth/wallet-session";
import { unauthorized, withDatabase } from "../../../http/errors";
import type { ChatHandler } from "../../app-services";
import { verifyWalletSignature } from "../../../http/auth/wallet-signature";
import { consumeNonce, findNonce, insertNonce, pruneNonces } from "../../repositories/auth";
import type * as routes from "./auth.routes";

/** A nonce can be used within 5 minutes of being issued (spec §3, §8). */
export const NONCE_TTL_MS = 5 * 60 * 1000;


/** The text the wallet signs: names the service, the address, the nonce and its expiry. */
export function signInMessage(serviceName: string, address: string, nonce: string, expiresAt: Date): string {
  return [
    `${serviceName} asks you to sign in with your wallet.`,
    "",
    `Address: ${getAddress(address.toLowerCase())}`,
    `Nonce: ${nonce}`,
    `Expires at: ${expiresAt.toISOString()}`,
    "",
    "Signing proves you control this address. It sends no transaction and costs nothing.",
  ].join("\n");
}

export const issueNonce: ChatHandler<typeof routes.nonceRoute> = async (c) => {
  const ctx = c.get("services");
  const { walletAddress } = c.req.valid("json");
  const wallet = walletAddress.toLowerCase();
  const now = ctx.now();
  const nonce = randomUUID();
  const expiresAt = new Date(now.getTime() + NONCE_TTL_MS);
  const message = signInMessage(ctx.config.serviceName, wallet, nonce, expiresAt);
  await withDatabase(() => insertNonce(ctx.db, { nonce, walletAddress: wallet, message, expiresAt }));
  if (Math.random() < 0.02) pruneNonces(ctx.db, now).catch(() => undefined);
  return c.json({ nonce, message, expiresAt: expiresAt.toISOString() }, 200);
};

/**
 * Every failure is the same 401: unknown or malformed nonce, a nonce issued for another
 * address, used (replay) or expired, and a signature that does not verify.
 */
export const verify: ChatHandler<typeof routes.verifyRoute> = async (c) => {
  const ctx = c.get("services");
  const body = c.req.valid("json");
  const wallet = body.walletAddress.toLowerCase();
  const now = ctx.now();
  if (!isUuid(body.nonce)) throw unauthorized();
  const issued = await withDatabase(() => findNonce(ctx.db, body.nonce.toLowerCase()));
  if (!issued || issued.walletAddress !== wallet || issued.usedAt !== null || issued.expiresAt <= now) {
    throw unauthorized();
  }
  const verified = await verifyWalletSignature({
    address: wallet,
    message: issued.message,
    signature: body.signature,
    publicClient: ctx.chain?.publicClient,
  });
  if (!verified) throw unauthorized();
  if (!(await withDatabase(() => consumeNonce(ctx.db, issued.nonce, wallet, now)))) throw unauthorized();
  const session = await withDatabase(() => createWalletSession(ctx.db, wallet, now));
  return c.json({ token: session.token, walletAddress: wallet, expiresAt: session.expiresAt.toISOString() }, 200);
};
