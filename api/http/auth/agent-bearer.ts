import { randomBytes } from "node:crypto";
import { eq } from "drizzle-orm";
import type { Context } from "hono";
import type { OffchainDb } from "../../db/client";
import { agents } from "../../db/offchain";
import { sha256Hex } from "../../lib/crypto";
import { HttpError, unauthorized } from "../errors";
import { bearerToken } from "./bearer";
import type { Authenticated } from "./factory";

/** Credentials are `agt_` + 32 random bytes in base64url; only their sha-256 is stored. */
export const AGENT_CREDENTIAL_PREFIX = "agt_";
const CREDENTIAL_PATTERN = /^agt_[A-Za-z0-9_-]{43}$/;

export type AuthenticatedAgent = {
  id: string;
  name: string;
  /** The wallet the agent acts for (lower case); null until one is bound. */
  walletAddress: `0x${string}` | null;
  isOrchestrator: boolean;
};

export function generateAgentCredential(): string {
  return AGENT_CREDENTIAL_PREFIX + randomBytes(32).toString("base64url");
}

export const forbiddenAgent = () => new HttpError(403, "Forbidden");

/**
 * The agent of `Authorization: Bearer <agent credential>` (spec §5). Every failure is 401
 * {"error":"Unauthorized"}. With `ownPath`, the path's `agentId` must be the agent's own id, else
 * 403 {"error":"Forbidden"} (the credential is valid, so re-registering would not help).
 */
export async function authenticateAgent(
  c: Context,
  db: OffchainDb,
  { ownPath }: { ownPath: boolean },
): Promise<Authenticated<AuthenticatedAgent>> {
  const credential = bearerToken(c.req.header("authorization"));
  if (!credential || !CREDENTIAL_PATTERN.test(credential)) throw unauthorized();
  const [row] = await db
    .select({
      id: agents.id,
      name: agents.name,
      walletAddress: agents.walletAddress,
      isOrchestrator: agents.isOrchestrator,
    })
    .from(agents)
    .where(eq(agents.credentialHash, sha256Hex(credential)))
    .limit(1);
  if (!row) throw unauthorized();
  if (ownPath && c.req.param("agentId") !== row.id) throw forbiddenAgent();
  return { principal: { ...row, walletAddress: row.walletAddress as `0x${string}` | null }, identity: { kind: "agent", id: row.id } };
}
