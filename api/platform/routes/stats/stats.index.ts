/** Stats resource: wires stats.routes.ts to stats.handlers.ts. */
import { createRouter } from "../../../http/create-app";
import type { PlatformEnv } from "../../app-services";
import { statsKeyAuth } from "../../middleware";
import * as handlers from "./stats.handlers";
import * as routes from "./stats.routes";

export const statsRouter = createRouter<PlatformEnv>();

// The documented quirk (spec §4.1): the key guards every path below "/stats/", never "/stats" itself.
statsRouter.use("/stats/*", async (c, next) => (/\/stats\/.+/.test(c.req.path) ? statsKeyAuth(c, next) : next()));

statsRouter
  .openapi(routes.publicStatsRoute, handlers.publicStats)
  .openapi(routes.statsSummaryRoute, handlers.statsSummary)
  .openapi(routes.subnetStatsRoute, handlers.subnetStatsOf);
