import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { Context } from "hono";
import { readOrCreateSecretFile } from "../../lib/crypto";
import { unauthorized } from "../errors";
import { bearerToken } from "./bearer";

const digest = (value: string) => createHash("sha256").update(value, "utf8").digest();

/** True when `presented` equals one of `keys`; compares fixed-length digests in constant time. */
export function matchesStatsKey(presented: string, keys: readonly string[]): boolean {
  const candidate = digest(presented);
  let found = false;
  for (const key of keys) found = timingSafeEqual(candidate, digest(key)) || found;
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
