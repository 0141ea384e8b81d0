import type { RouteHandler } from "@hono/zod-openapi";
import type { UserEnv } from "../../../http/auth/idp-cookie";
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import { every } from "hono/combine";
import { notFound } from "../../../http/errors";
import type { AppEnv } from "../../../http/types";
import { userAuth } from "../../agents-auth";
import { agentsConfigOf, type AgentsDeps } from "../../agents-config";
import { chainReady, createPlatformRouter } from "../../context";
import { presentComment } from "../../presenters/engagement";
import { findListedPod } from "../../services/pod-drafts";
import { assertPathMatch } from "../subnets/handlers";
import { IDP_COOKIE_SCHEME } from "../subnets/routes";
import { insertComment, listPodComments } from "./queries";
import { createCommentRoute, listCommentsRoute } from "./routes";

/** GET/POST /pods/{podId}/comments: on publicly listed pods (minted, indexed, not banned, not archived). */
export function createCommentsRouter(deps: AgentsDeps): OpenAPIHono<AppEnv> {
  const router = createPlatformRouter();
  router.openAPIRegistry.registerComponent("securitySchemes", "idpCookie", IDP_COOKIE_SCHEME);
  const middleware = every(userAuth(deps), chainReady(deps)) as MiddlewareHandler<UserEnv>;
  router.openapi({ ...listCommentsRoute, middleware }, listComments(deps));
  router.openapi({ ...createCommentRoute, middleware }, createComment(deps));
  return router;
}

export const podNotFound = () => notFound("Pod not found");

export function listComments(deps: AgentsDeps): RouteHandler<typeof listCommentsRoute, UserEnv> {
  const { commentsMaxItems } = agentsConfigOf(deps);
  return async (c) => {
    const { podId } = c.req.valid("param");
    const pod = await findListedPod(deps.db, podId);
    if (!pod) throw podNotFound();
    const rows = await listPodComments(deps.db, pod.id, commentsMaxItems);
    return c.json({ data: { comments: rows.map(presentComment) } }, 200);
  };
}

export function createComment(deps: AgentsDeps): RouteHandler<typeof createCommentRoute, UserEnv> {
  return async (c) => {
    const { podId } = c.req.valid("param");
    const body = c.req.valid("json");
    assertPathMatch("podId", body.podId, podId);
    const pod = await findListedPod(deps.db, podId);
    if (!pod) throw podNotFound();
    const id = await insertComment(deps.db, { podKey: pod.id, userId: c.get("user").id, comment: body.comment });
    return c.json({ data: { id } }, 201);
  };
}
