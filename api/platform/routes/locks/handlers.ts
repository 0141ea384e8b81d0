import type { OpenAPIHono, RouteHandler } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import { every } from "hono/combine";
import type { UserEnv } from "../../../http/auth/idp-cookie";
import type { AppEnv } from "../../../http/types";
import { userAuth } from "../../agents-auth";
import type { AgentsDeps } from "../../agents-config";
import { chainReady, createPlatformRouter } from "../../context";
import { presentLock } from "../../presenters/engagement";
import { IDP_COOKIE_SCHEME } from "../subnets/routes";
import { listOwnedLocks } from "./queries";
import { listLocksRoute } from "./routes";

/** GET /locks/{address}. */
export function createLocksRouter(deps: AgentsDeps): OpenAPIHono<AppEnv> {
  const router = createPlatformRouter();
  router.openAPIRegistry.registerComponent("securitySchemes", "idpCookie", IDP_COOKIE_SCHEME);
  const middleware = every(userAuth(deps), chainReady(deps)) as MiddlewareHandler<UserEnv>;
  router.openapi({ ...listLocksRoute, middleware }, listLocks(deps));
  return router;
}

export function listLocks(deps: AgentsDeps): RouteHandler<typeof listLocksRoute, UserEnv> {
  return async (c) => {
    const { address } = c.req.valid("param");
    const rows = await listOwnedLocks(deps.db, address);
    return c.json({ data: { locks: rows.map(presentLock) } }, 200);
  };
}
