/**
 * The Platform API's auth middleware, each made once by `createAuthMiddleware`: put in a route's
 * `middleware`, it types the handler's caller (`c.get("user")`, `c.get("agent")`).
 */
import { createMiddleware } from "hono/factory";
import { authenticateAgent, type AuthenticatedAgent } from "../http/auth/agent-bearer";
import { createAuthMiddleware } from "../http/auth/factory";
import { authenticateUser, type PlatformUser } from "../http/auth/idp-cookie";
import { assertStatsKey } from "../http/auth/stats-key";
import type { PlatformEnv, PlatformServices } from "./app-services";

/** The `idp-token` cookie (401 on any failure), then the per-user rate limit. */
export const userAuth = createAuthMiddleware<PlatformServices, "user", PlatformUser>("user", async (c) => {
  const { db, platform } = c.get("services");
  return authenticateUser(c, db, await platform.idp());
});

/**
 * The agent bearer credential (401 on any failure); the path's `agentId` must be the caller's own
 * id (403); then the per-agent rate limit.
 */
export const agentAuth = createAuthMiddleware<PlatformServices, "agent", AuthenticatedAgent>("agent", (c) =>
  authenticateAgent(c, c.get("services").db, { ownPath: true }),
);

/** The agent bearer credential on routes without an `agentId` in the path (401 on any failure), then the per-agent rate limit. */
export const agentCallerAuth = createAuthMiddleware<PlatformServices, "agent", AuthenticatedAgent>("agent", (c) =>
  authenticateAgent(c, c.get("services").db, { ownPath: false }),
);

/** `Authorization: Bearer <STATS_API_KEY>` (401 on any failure). */
export const statsKeyAuth = createMiddleware<PlatformEnv>(async (c, next) => {
  assertStatsKey(c, c.get("services").platform.statsApiKeys());
  await next();
});
