/** The chat server's auth middleware, made once by `createAuthMiddleware`; handlers read `c.get("wallet")`. */
import { createAuthMiddleware } from "../http/auth/factory";
import { authenticateWallet, type WalletAddress } from "../http/auth/wallet-session";
import type { ChatServices } from "./app-services";

/**
 * `Authorization: Bearer <SESSION_TOKEN>` (spec §5): a missing, malformed, unknown or expired token
 * is 401; sets the `wallet` variable (lower case), then charges the wallet's rate-limit budget.
 */
export const walletAuth = createAuthMiddleware<ChatServices, "wallet", WalletAddress>("wallet", (c) => {
  const ctx = c.get("services");
  return authenticateWallet(c, ctx.db, ctx.now());
});
