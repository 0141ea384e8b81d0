import type { ApiDeps } from "../deps";
import { createApp } from "../http/create-app";
import { mountOpenApi } from "../http/openapi";
import { createPostgresRateLimiter, rateLimit } from "../http/rate-limit";
import { registerReadiness } from "../http/readiness";

export const PLATFORM_BASE_PATH = "/api/v1";

/**
 * Platform API. Resource routers (api/platform/routes/<resource>/) mount under
 * PLATFORM_BASE_PATH with `app.route(PLATFORM_BASE_PATH, router)` before
 * `mountOpenApi`, and answer `{ "data": ... }`.
 */
export function createPlatformApp(deps: ApiDeps) {
  const { config, pool } = deps;
  const app = createApp({ logger: deps.logger.child({ service: "platform-api" }) });
  const limiter =
    deps.rateLimiter ?? createPostgresRateLimiter(pool, { ...config.rateLimit, keyPrefix: "platform" });

  app.use(`${PLATFORM_BASE_PATH}/*`, rateLimit(limiter, { trustProxy: config.trustProxy }));
  registerReadiness(app, { pool, viewsSchema: config.ponderViewsSchema, ponderUrl: config.ponderUrl });
  mountOpenApi(app, { title: "Data-Market Platform API", version: "1.0.0" });
  return app;
}
