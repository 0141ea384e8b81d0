/**
 * The Platform API's route kinds (see `api/http/route.ts`): a resource's routes file makes its set
 * once, `const route = platformRoutes(["Pods"])`, and declares each route with the kind that says
 * who may call it and whether it reads chain tables.
 */
import { chainReady } from "../../http/middleware";
import { commonErrors, errorResponse } from "../../http/openapi";
import { routeKind } from "../../http/route";
import { agentAuth, agentCallerAuth, userAuth } from "../middleware";
import { AGENT_BEARER_SECURITY, IDP_COOKIE_SECURITY } from "../schemas/common";

type ErrorResponse = ReturnType<typeof errorResponse>;

const indexerNotReady = { 503: errorResponse("Indexer not ready") };

/** The agent credential's errors (401) and the path's agentId check (403). */
export const agentErrors = {
  401: errorResponse("Missing or unknown agent credential"),
  403: errorResponse("The path's agentId is not the caller's own"),
};

/**
 * The kinds of a resource's routes under `tags`; `unauthorized` is how its cookie routes describe
 * their 401.
 */
export function platformRoutes(tags: string[], unauthorized: ErrorResponse = commonErrors[401]) {
  return {
    /** No credential, no chain read. */
    open: routeKind({ tags, middleware: [], responses: {} }),
    /** No credential; reads chain tables: `chainReady` (503 until the indexer's views exist). */
    indexed: routeKind({ tags, middleware: [chainReady], responses: indexerNotReady }),
    /** The public reads (`/public/*`, the event stream, a wallet's claimable): `indexed`, and documents the per-IP 429. */
    public: routeKind({ tags, middleware: [chainReady], responses: { 429: commonErrors[429], ...indexerNotReady } }),
    /** The `idp-token` cookie (`userAuth`, `c.get("user")`). */
    user: routeKind({ tags, middleware: [userAuth], security: IDP_COOKIE_SECURITY, responses: { 401: unauthorized } }),
    /** `user`, then `chainReady`. */
    userIndexed: routeKind({
      tags,
      middleware: [userAuth, chainReady],
      security: IDP_COOKIE_SECURITY,
      responses: { 401: unauthorized, ...indexerNotReady },
    }),
    /** The agent bearer credential for the path's own `agentId` (`agentAuth`, `c.get("agent")`). */
    agent: routeKind({ tags, middleware: [agentAuth], security: AGENT_BEARER_SECURITY, responses: agentErrors }),
    /** The agent bearer credential, no `agentId` in the path: the caller's own resources (`c.get("agent")`). */
    agentCaller: routeKind({
      tags,
      middleware: [agentCallerAuth],
      security: AGENT_BEARER_SECURITY,
      responses: { 401: agentErrors[401] },
    }),
    /** `agentCaller`, then `chainReady`. */
    agentCallerIndexed: routeKind({
      tags,
      middleware: [agentCallerAuth, chainReady],
      security: AGENT_BEARER_SECURITY,
      responses: { 401: agentErrors[401], ...indexerNotReady },
    }),
    /** `agent`, then `chainReady`. */
    agentIndexed: routeKind({
      tags,
      middleware: [agentAuth, chainReady],
      security: AGENT_BEARER_SECURITY,
      responses: { ...agentErrors, ...indexerNotReady },
    }),
  };
}

/** The engagement routes (comments, feedback, locks, stakes, votes): their 401 names the cookie. */
export const engagementRoutes = platformRoutes(["Engagement"], errorResponse("Missing or invalid cookie"));
