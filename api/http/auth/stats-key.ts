import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { createMiddleware } from "hono/factory";
import { unauthorized } from "../errors";
import type { AppEnv } from "../types";

const digest = (value: string) => createHash("sha256").update(value, "utf8").digest();

/** True when `presented` equals one of `keys`; compares fixed-length digests in constant time. */
export function matchesStatsKey(presented: string, keys: readonly string[]): boolean {
  const candidate = digest(presented);
  let found = false;
  for (const key of keys) found = timingSafeEqual(candidate, digest(key)) || found;
  return found;
}

/** The value of `Authorization: Bearer <value>`, or undefined. */
export function bearerToken(header: string | undefined): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? "");
  return match?.[1];
}

/**
 * Requires `Authorization: Bearer <STATS_API_KEY>` (spec §5, stats bearer key). `keys` is read per
 * request. No keys configured means nothing is accepted. Every failure is 401 {"error":"Unauthorized"}.
 */
export function requireStatsKey(keys: () => readonly string[]) {
  return createMiddleware<AppEnv>(async (c, next) => {
    const presented = bearerToken(c.req.header("authorization"));
    const configured = keys();
    if (!presented || configured.length === 0 || !matchesStatsKey(presented, configured)) throw unauthorized();
    await next();
  });
}

/**
 * The local setup's stats key: read from `file`, or generated (32 random bytes, hex) and written
 * there on first use, so that it survives restarts. Only used when STATS_API_KEYS is unset on a local chain.
 */
export function localStatsApiKey(file: string): { key: string; created: boolean } {
  const resolved = path.resolve(file);
  if (existsSync(resolved)) {
    const key = readFileSync(resolved, "utf8").trim();
    if (key.length > 0) return { key, created: false };
  }
  const key = randomBytes(32).toString("hex");
  mkdirSync(path.dirname(resolved), { recursive: true });
  writeFileSync(resolved, `${key}\n`, { mode: 0o600 });
  return { key, created: true };
}
