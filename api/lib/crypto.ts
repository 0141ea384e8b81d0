import { createHash, timingSafeEqual } from "node:crypto";
import fs from "node:fs";
import path from "node:path";

/** sha-256 hex: what is stored instead of a credential (agent credential, API key, session token), and content hashes. */
export const sha256Hex = (data: string | Uint8Array): string => createHash("sha256").update(data).digest("hex");

/** True when two secrets are equal: their sha-256 digests (fixed length) compared in constant time. */
export const secretsEqual = (a: string, b: string): boolean =>
  timingSafeEqual(createHash("sha256").update(a, "utf8").digest(), createHash("sha256").update(b, "utf8").digest());

/**
 * A local secret kept in `file`: read when present (and not empty), else made by `create` and
 * written there (mode 0600). Written aside, then linked into place, so that processes starting
 * together agree on one secret.
 */
export function readOrCreateSecretFile(file: string, create: () => string): { value: string; created: boolean } {
  const resolved = path.resolve(file);
  const existing = readSecret(resolved);
  if (existing !== undefined) return { value: existing, created: false };
  fs.mkdirSync(path.dirname(resolved), { recursive: true });
  const temporary = `${resolved}.${process.pid}.${Date.now()}.tmp`;
  fs.writeFileSync(temporary, `${create()}\n`, { mode: 0o600 });
  let created = true;
  try {
    fs.linkSync(temporary, resolved);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    created = false;
    // an empty file left by an older version: replace it
    if (readSecret(resolved) === undefined) {
      fs.renameSync(temporary, resolved);
      created = true;
    }
  } finally {
    fs.rmSync(temporary, { force: true });
  }
  return { value: fs.readFileSync(resolved, "utf8").trim(), created };
}

function readSecret(file: string): string | undefined {
  if (!fs.existsSync(file)) return undefined;
  const value = fs.readFileSync(file, "utf8").trim();
  return value.length > 0 ? value : undefined;
}
