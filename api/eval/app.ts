import type { ApiDeps } from "../deps";
import { createApp } from "../http/create-app";
import { mountOpenApi } from "../http/openapi";
import { createPostgresRateLimiter, rateLimit } from "../http/rate-limit";
import { registerReadiness } from "../http/readiness";

export const EVAL_BASE_PATH = "/api/v1";

/** Evaluation API: routes mount under EVAL_BASE_PATH and answer bare bodies. */
export function createEvalApp(deps: ApiDeps) {
  const { config, pool } = deps;
  const app = createApp({ logger: deps.logger.child({ service: "eval-api" }) });
  const limiter = deps.rateLimiter ?? createPostgresRateLimiter(pool, { ...config.rateLimit, keyPrefix: "eval" });

  app.use(`${EVAL_BASE_PATH}/*`, rateLimit(limiter, { trustProxy: config.trustProxy }));
  registerReadiness(app, { pool, viewsSchema: config.ponderViewsSchema, ponderUrl: config.ponderUrl });
  mountOpenApi(app, { title: "Data-Market Evaluation API", version: "1.0.0" });
  return app;
}
