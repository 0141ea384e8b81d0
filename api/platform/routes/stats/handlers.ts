/** Stats routes (spec §4.1): `createStatsRouter(deps)` is mounted under /api/v1. */
import { createMiddleware } from "hono/factory";
import { requireStatsKey } from "../../../http/auth/stats-key";
import type { AppEnv } from "../../../http/types";
import { chainReady, createPlatformRouter, platformContext, type PlatformDeps } from "../../context";
import { networkStats, subnetStats } from "../../services/stats";
import { publicStatsRoute, STATS_KEY_SCHEME, statsSummaryRoute, subnetStatsRoute } from "./routes";

export function createStatsRouter(deps: PlatformDeps) {
  const router = createPlatformRouter();
  const context = platformContext(deps);
  const { db } = deps;
  const viewsSchema = deps.config.ponderViewsSchema;
  const indexed = chainReady(deps);
  const statsKey = requireStatsKey(() => context.statsApiKeys());
  // Resolve the keys now, so that a key generated for the local setup is logged when the app starts.
  context.statsApiKeys();
  router.openAPIRegistry.registerComponent("securitySchemes", "statsKey", STATS_KEY_SCHEME);

  // The documented quirk (spec §4.1): the key guards every path below "/stats/", never "/stats" itself.
  router.use(
    "/stats/*",
    createMiddleware<AppEnv>(async (c, next) => {
      if (!/\/stats\/.+/.test(c.req.path)) return next();
      return statsKey(c, next);
    }),
  );

  router.openapi({ ...publicStatsRoute, middleware: indexed }, async (c) =>
    c.json({ data: await networkStats(db, context, viewsSchema) }, 200),
  );

  router.openapi({ ...statsSummaryRoute, middleware: indexed }, async (c) =>
    c.json({ data: await networkStats(db, context, viewsSchema) }, 200),
  );

  router.openapi({ ...subnetStatsRoute, middleware: indexed }, async (c) =>
    c.json({ data: await subnetStats(db, context, viewsSchema, c.req.valid("param").id) }, 200),
  );

  return router;
}
