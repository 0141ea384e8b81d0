import { createHash } from "node:crypto";
import { and, eq, isNull } from "drizzle-orm";
import type { Context, MiddlewareHandler } from "hono";
import type { OffchainDb } from "../../db/client";
import { evalApiKeys } from "../../db/offchain/eval";
import { unauthorized } from "../errors";
import type { AppEnv } from "../types";

/** Keys are stored as the sha-256 hex of the key; the key itself never is. */
export const hashApiKey = (key: string): string => createHash("sha256").update(key, "utf8").digest("hex");

// Longer than any key we issue by a wide margin; anything beyond is not worth a lookup.
const MAX_KEY_LENGTH = 512;
const KEY_SHAPE = /^[\x21-\x7e]+$/;

/** The presented key: `Authorization: Bearer <key>`, else `x-api-key: <key>`. */
export function presentedApiKey(c: Context): string | undefined {
  const authorization = c.req.header("authorization")?.trim();
  const bearer = authorization?.match(/^Bearer\s+(\S+)$/i)?.[1];
  const candidate = bearer ?? c.req.header("x-api-key")?.trim();
  if (!candidate || candidate.length > MAX_KEY_LENGTH || !KEY_SHAPE.test(candidate)) return undefined;
  return candidate;
}

/** Account id of an unrevoked key, or undefined. */
export async function accountForApiKey(db: OffchainDb, key: string): Promise<string | undefined> {
  const [row] = await db
    .select({ accountId: evalApiKeys.accountId })
    .from(evalApiKeys)
    .where(and(eq(evalApiKeys.keyHash, hashApiKey(key)), isNull(evalApiKeys.revokedAt)))
    .limit(1);
  return row?.accountId;
}

/**
 * Evaluation API key authentication: a missing, unknown or revoked key is
 * 401 `{"error":"Unauthorized"}`; a valid one sets
 * `identity = { kind: "eval-account", id: <account id> }`.
 */
export function evalApiKeyAuth(db: OffchainDb): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const key = presentedApiKey(c);
    if (!key) throw unauthorized();
    const accountId = await accountForApiKey(db, key);
    if (!accountId) throw unauthorized();
    c.set("identity", { kind: "eval-account", id: accountId });
    await next();
  };
}
