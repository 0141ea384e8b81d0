/**
 * Auth middleware of the engagement and agent routes, each as one typed middleware so that a
 * route's `middleware` gives its handler the right context type (`c.get("user")`, `c.get("agent")`).
 */
import type { MiddlewareHandler } from "hono";
import { every } from "hono/combine";
import { requireAgent, type AgentEnv } from "../http/auth/agent-bearer";
import type { UserEnv } from "../http/auth/idp-cookie";
import { rateLimit } from "../http/rate-limit";
import { cookieAuth, identityLimiter, type PlatformDeps } from "./context";

/** The `idp-token` cookie (401 on any failure), then the per-user rate limit. */
export function userAuth(deps: PlatformDeps): MiddlewareHandler<UserEnv> {
  return every(...cookieAuth(deps)) as MiddlewareHandler<UserEnv>;
}

/**
 * The agent bearer credential (401 on any failure); with `ownPath`, the path's `agentId` must be
 * the caller's own id (403); then the per-agent rate limit (the app's limiter, charged per identity).
 */
export function agentAuth(deps: PlatformDeps, { ownPath = true } = {}): MiddlewareHandler<AgentEnv> {
  const authenticate = requireAgent(deps.db, ownPath ? { pathParam: "agentId" } : {});
  const limit = rateLimit(identityLimiter(deps), { trustProxy: deps.config.trustProxy });
  return every(authenticate, limit) as MiddlewareHandler<AgentEnv>;
}
