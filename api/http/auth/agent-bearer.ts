import { createHash, randomBytes } from "node:crypto";
import { eq } from "drizzle-orm";
import { createMiddleware } from "hono/factory";
import type { OffchainDb } from "../../db/client";
import { agents } from "../../db/offchain";
import { HttpError, unauthorized } from "../errors";
import type { AppEnv } from "../types";

/** Credentials are `agt_` + 32 random bytes in base64url; only their sha-256 is stored. */
export const AGENT_CREDENTIAL_PREFIX = "agt_";
const CREDENTIAL_PATTERN = /^agt_[A-Za-z0-9_-]{43}$/;

export type AuthenticatedAgent = {
  id: string;
  name: string;
  walletAddress: `0x${string}`;
  isOrchestrator: boolean;
};

export type AgentEnv = AppEnv & { Variables: AppEnv["Variables"] & { agent: AuthenticatedAgent } };

export function generateAgentCredential(): string {
  return AGENT_CREDENTIAL_PREFIX + randomBytes(32).toString("base64url");
}

export function hashAgentCredential(credential: string): string {
  return createHash("sha256").update(credential, "utf8").digest("hex");
}

/** The credential of an `Authorization: Bearer <credential>` header, or undefined. */
export function bearerCredential(header: string | undefined): string | undefined {
  const match = header?.match(/^Bearer[ ]+(\S+)\s*$/i);
  return match?.[1];
}

export const forbiddenAgent = () => new HttpError(403, "Forbidden");

/**
 * Requires `Authorization: Bearer <agent credential>` (spec §5). Sets `agent` and the rate-limit
 * identity `{ kind: "agent" }`. Every failure is 401 {"error":"Unauthorized"}. When `pathParam`
 * is given, the path's agent id must be the authenticated agent's own id, else 403 {"error":"Forbidden"}
 * (the credential is valid, so re-registering would not help).
 */
export function requireAgent(db: OffchainDb, options: { pathParam?: string } = {}) {
  return createMiddleware<AgentEnv>(async (c, next) => {
    const credential = bearerCredential(c.req.header("authorization"));
    if (!credential || !CREDENTIAL_PATTERN.test(credential)) throw unauthorized();
    const [row] = await db
      .select({
        id: agents.id,
        name: agents.name,
        walletAddress: agents.walletAddress,
        isOrchestrator: agents.isOrchestrator,
      })
      .from(agents)
      .where(eq(agents.credentialHash, hashAgentCredential(credential)))
      .limit(1);
    if (!row) throw unauthorized();
    c.set("agent", { ...row, walletAddress: row.walletAddress as `0x${string}` });
    c.set("identity", { kind: "agent", id: row.id });
    if (options.pathParam !== undefined && c.req.param(options.pathParam) !== row.id) throw forbiddenAgent();
    await next();
  });
}
