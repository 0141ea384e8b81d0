/**
 * The one way to declare a route. A *route kind* holds what a family of routes shares: the
 * resource's tags, the middleware (auth, `chainReady`, a body limit), the auth's OpenAPI
 * `security`, and the responses these bring (401, 403, 503 …). A declaration made with a kind
 * states only what is its own: method, path, operationId, summary, request and its own
 * responses (which replace the kind's of the same status).
 *
 *   const route = platformRoutes(["Pods"]);
 *   export const getMyPodRoute = route.userIndexed("get", "/me/pods/{id}", "getMyPod", { summary, request, responses });
 *
 * The result is `createRoute`'s, with the literal method, path and middleware tuple, so a handler
 * typed by it (`PlatformHandler<typeof getMyPodRoute>`) reads `c.get("user")` as before.
 */
import { createRoute, type RouteConfig } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import { MIN_BLOCK_DOCS } from "./indexed-block";
import { chainReady } from "./middleware";

type Responses = RouteConfig["responses"];
// biome-ignore lint/suspicious/noExplicitAny: any middleware env, as RouteConfig["middleware"] accepts
type AnyMiddleware = MiddlewareHandler<any, any, any>;

/** What a declaration states itself; the rest comes from its kind. */
export type RouteSpec = Omit<RouteConfig, "operationId" | "method" | "path" | "tags" | "middleware" | "security">;

/** What every route of a kind shares. */
export interface RouteKindParts<M extends AnyMiddleware[], R extends Responses> {
  tags: string[];
  middleware: M;
  security?: RouteConfig["security"];
  responses: R;
}

/** The kind's responses, with the declaration's own in place of those of the same status. */
type Merged<K, S> = Omit<K, keyof S> & S;

/**
 * A route kind: `kind(method, path, operationId, spec)` declares one route. The OpenAPI operation
 * keeps the order operationId, tags, summary, description, security (the documents do not change).
 */
export function routeKind<const M extends AnyMiddleware[], const R extends Responses>(kind: RouteKindParts<M, R>) {
  return <Method extends RouteConfig["method"], P extends string, S extends RouteSpec>(
    method: Method,
    path: P,
    operationId: string,
    spec: S,
  ) => {
    const { responses, ...own } = spec;
    // a route that reads chain tables takes `?minBlock` (chainReady) and may answer its 409
    const chainBacked = kind.middleware.includes(chainReady);
    return createRoute({
      operationId,
      middleware: kind.middleware,
      method,
      path,
      tags: kind.tags,
      ...(own as Omit<S, "responses">),
      ...(kind.security ? { security: kind.security } : {}),
      ...(chainBacked ? { parameters: [MIN_BLOCK_DOCS.parameter] } : {}),
      responses: { ...kind.responses, ...(chainBacked ? MIN_BLOCK_DOCS.responses : {}), ...responses } as Merged<R, S["responses"]>,
    });
  };
}
