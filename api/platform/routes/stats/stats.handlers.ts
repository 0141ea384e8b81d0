/** Stats handlers (spec §4.1). */
import type { PlatformHandler } from "../../app-services";
import { networkStats, subnetStats } from "../../services/stats";
import type * as routes from "./stats.routes";

export const publicStats: PlatformHandler<typeof routes.publicStatsRoute> = async (c) => {
  const { db, platform, viewsSchema } = c.get("services");
  return c.json({ data: await networkStats(db, platform, viewsSchema) }, 200);
};

export const statsSummary: PlatformHandler<typeof routes.statsSummaryRoute> = async (c) => {
  const { db, platform, viewsSchema } = c.get("services");
  return c.json({ data: await networkStats(db, platform, viewsSchema) }, 200);
};

export const subnetStatsOf: PlatformHandler<typeof routes.subnetStatsRoute> = async (c) => {
  const { db, platform, viewsSchema } = c.get("services");
  return c.json({ data: await subnetStats(db, platform, viewsSchema, c.req.valid("param").id) }, 200);
};
