/** Middleware shared by the surfaces; each reads what it needs from `c.get("services")`. */
import type { Context, MiddlewareHandler } from "hono";
import { createMiddleware } from "hono/factory";
import { setAnswerHeader } from "./answer-headers";
import { awaitMinBlock, indexedBlock, indexedBlockHeaders, parseMinBlock } from "./indexed-block";
import { assertChainReady } from "./readiness";
import type { AppEnv, ServicesEnv, SurfaceServices } from "./types";

type BaseEnv = ServicesEnv<SurfaceServices>;

/** Sets the `services` variable for every later middleware and handler; the first middleware of a surface. */
export function provideServices<C extends SurfaceServices>(ctx: C): MiddlewareHandler<ServicesEnv<C>> {
  return createMiddleware<ServicesEnv<C>>((c, next) => {
    c.set("services", ctx);
    return next();
  });
}

/**
 * For routes that read chain tables: 503 {"error":"Indexer not ready"} until the indexer's views
 * exist; `?minBlock=N` waits briefly for block N (409 when the indexer has not reached it); the
 * answer names the indexed block it reflects (`X-Indexed-Block`, api/http/indexed-block.ts).
 */
export const chainReady = createMiddleware<BaseEnv>(async (c, next) => {
  const { pool, viewsSchema } = c.get("services");
  await assertChainReady(pool, viewsSchema, c.get("logger"));
  const minBlock = parseMinBlock(c.req.query("minBlock"));
  // read before the handler: the answer reflects at least this block
  const head = await (minBlock === undefined ? indexedBlock(pool, viewsSchema) : awaitMinBlock(pool, viewsSchema, minBlock)).catch(
    (error: unknown) => {
      if (minBlock !== undefined) throw error;
      return null;
    },
  );
  const headers = indexedBlockHeaders(head);
  c.set("indexedBlockHeaders", headers);
  await next();
  // (straight onto Node's answer where there is one: no Headers object is built for it)
  for (const [name, value] of Object.entries(headers)) setAnswerHeader(c as unknown as Context, name, value);
});

/** The per-identity budget, after an auth middleware has set `identity`. */
export const identityRateLimit = createMiddleware<BaseEnv>((c, next) =>
  c.get("services").identityRateLimit(c as unknown as Context<AppEnv>, next),
);
