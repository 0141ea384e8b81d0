/** Middleware shared by the surfaces; each reads what it needs from `c.get("ctx")`. */
import type { Context, MiddlewareHandler } from "hono";
import { createMiddleware } from "hono/factory";
import { assertChainReady } from "./readiness";
import type { AppEnv, ContextEnv, SurfaceContext } from "./types";

type BaseEnv = ContextEnv<SurfaceContext>;

/** Sets the `ctx` variable for every later middleware and handler; the first middleware of a surface. */
export function provideContext<C extends SurfaceContext>(ctx: C): MiddlewareHandler<ContextEnv<C>> {
  return createMiddleware<ContextEnv<C>>((c, next) => {
    c.set("ctx", ctx);
    return next();
  });
}

/** 503 {"error":"Indexer not ready"} until the indexer's views exist; for routes that read chain tables. */
export const chainReady = createMiddleware<BaseEnv>(async (c, next) => {
  const { pool, viewsSchema } = c.get("ctx");
  await assertChainReady(pool, viewsSchema, c.get("logger"));
  await next();
});

/** The per-identity budget, after an auth middleware has set `identity`. */
export const identityRateLimit = createMiddleware<BaseEnv>((c, next) =>
  c.get("ctx").identityRateLimit(c as unknown as Context<AppEnv>, next),
);
