import { randomBytes } from "node:crypto";
import type { Context } from "hono";
import { readOrCreateSecretFile, secretsEqual } from "../../lib/crypto";
import { unauthorized } from "../errors";
import { bearerToken } from "./bearer";

/** True when `presented` equals one of `keys`; every key is compared (in constant time), also after a match. */
export function matchesStatsKey(presented: string, keys: readonly string[]): boolean {
  let found = false;
  for (const key of keys) found = secretsEqual(presented, key) || found;
  return found;
}

/**
 * `Authorization: Bearer <STATS_API_KEY>` (spec §5, stats bearer key) must name one of `keys`. No
 * keys configured means nothing is accepted. Every failure is 401 {"error":"Unauthorized"}.
 */
export function assertStatsKey(c: Context, keys: readonly string[]): void {
  const presented = bearerToken(c.req.header("authorization"));
  if (!presented || keys.length === 0 || !matchesStatsKey(presented, keys)) throw unauthorized();
}

/**
 * The local setup's stats key: read from `file`, or generated (32 random bytes, hex) and written
 * there on first use, so that it survives restarts. Only used when STATS_API_KEYS is unset on a local chain.
 */
export function localStatsApiKey(file: string): { key: string; created: boolean } {
  const { value, created } = readOrCreateSecretFile(file, () => randomBytes(32).toString("hex"));
  return { key: value, created };
}
