import type { ApiDeps } from "../deps";
import { identityLimiter } from "./context";
import { createApp } from "../http/create-app";
import { mountOpenApi } from "../http/openapi";
import { rateLimit } from "../http/rate-limit";
import { registerReadiness } from "../http/readiness";
import { createPodsRouter } from "./routes/pods/handlers";
import { createStatsRouter } from "./routes/stats/handlers";
import { createSubnetsRouter } from "./routes/subnets/handlers";
import { createAgentsRouter } from "./routes/agents/handlers";
import { createDatasetsRouter } from "./routes/agents/datasets/handlers";
import { createSubscriptionsRouter } from "./routes/agents/subscriptions/handlers";
import { createCommentsRouter } from "./routes/comments/handlers";
import { createFeedbackRouter } from "./routes/feedback/handlers";
import { createLocksRouter } from "./routes/locks/handlers";
import { createStakesRouter } from "./routes/stakes/handlers";
import { createVotesRouter } from "./routes/votes/handlers";

export const PLATFORM_BASE_PATH = "/api/v1";

/**
 * Platform API. Resource routers (api/platform/routes/<resource>/) mount under
 * PLATFORM_BASE_PATH with `app.route(PLATFORM_BASE_PATH, router)` before
 * `mountOpenApi`, and answer `{ "data": ... }`.
 */
export function createPlatformApp(deps: ApiDeps) {
  const { config, pool } = deps;
  const app = createApp({ logger: deps.logger.child({ service: "platform-api" }) });
  // one limiter for the per-IP and the per-identity budgets (see identityLimiter)
  const limiter = identityLimiter(deps);

  app.use(`${PLATFORM_BASE_PATH}/*`, rateLimit(limiter, { trustProxy: config.trustProxy }));
  registerReadiness(app, { pool, viewsSchema: config.ponderViewsSchema, ponderUrl: config.ponderUrl });
  app.route(PLATFORM_BASE_PATH, createStatsRouter(deps));
  app.route(PLATFORM_BASE_PATH, createPodsRouter(deps));
  app.route(PLATFORM_BASE_PATH, createSubnetsRouter(deps));
  app.route(PLATFORM_BASE_PATH, createCommentsRouter(deps));
  app.route(PLATFORM_BASE_PATH, createVotesRouter(deps));
  app.route(PLATFORM_BASE_PATH, createFeedbackRouter(deps));
  app.route(PLATFORM_BASE_PATH, createStakesRouter(deps));
  app.route(PLATFORM_BASE_PATH, createLocksRouter(deps));
  app.route(PLATFORM_BASE_PATH, createAgentsRouter(deps));
  app.route(PLATFORM_BASE_PATH, createSubscriptionsRouter(deps));
  app.route(PLATFORM_BASE_PATH, createDatasetsRouter(deps));
  mountOpenApi(app, { title: "Data-Market Platform API", version: "1.0.0" });
  return app;
}
