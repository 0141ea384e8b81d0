import { and, eq, isNull } from "drizzle-orm";
import type { Context } from "hono";
import type { OffchainDb } from "../../db/client";
import { evalApiKeys } from "../../db/offchain/eval";
import { sha256Hex } from "../../lib/crypto";
import { unauthorized } from "../errors";
import { bearerToken } from "./bearer";
import type { Authenticated } from "./factory";


// Longer than any key we issue by a wide margin; anything beyond is not worth a lookup.
const MAX_KEY_LENGTH = 512;
const KEY_SHAPE = /^[\x21-\x7e]+$/;

/** The presented key: `Authorization: Bearer <key>`, else `x-api-key: <key>`. */
export function presentedApiKey(c: Context): string | undefined {
  const candidate = bearerToken(c.req.header("authorization")) ?? c.req.header("x-api-key")?.trim();
  if (!candidate || candidate.length > MAX_KEY_LENGTH || !KEY_SHAPE.test(candidate)) return undefined;
  return candidate;
}

/** Account id of an unrevoked key, or undefined. */
export async function accountForApiKey(db: OffchainDb, key: string): Promise<string | undefined> {
  const [row] = await db
    .select({ accountId: evalApiKeys.accountId })
    .from(evalApiKeys)
    .where(and(eq(evalApiKeys.keyHash, sha256Hex(key)), isNull(evalApiKeys.revokedAt)))
    .limit(1);
  return row?.accountId;
}

/**
 * The account of a presented Evaluation API key: a missing, unknown or revoked key is
 * 401 `{"error":"Unauthorized"}`.
 */
export async function authenticateEvalAccount(c: Context, db: OffchainDb): Promise<Authenticated<string>> {
  const key = presentedApiKey(c);
  if (!key) throw unauthorized();
  const accountId = await accountForApiKey(db, key);
  if (!accountId) throw unauthorized();
  return { principal: accountId, identity: { kind: "eval-account", id: accountId } };
}
