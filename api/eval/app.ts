import type { RateLimiterAbstract } from "rate-limiter-flexible";
import type { ApiDeps } from "../deps";
import { evalApiKeyAuth } from "../http/auth/eval-api-key";
import { createApp, createRouter } from "../http/create-app";
import { mountOpenApi } from "../http/openapi";
import { createPostgresRateLimiter, rateLimit } from "../http/rate-limit";
import { registerReadiness } from "../http/readiness";
import { loadEvalConfig, type EvalConfig } from "./config";
import { EVAL_BASE_PATH, type EvalContext } from "./context";
import { registerAssessmentRoutes } from "./routes/assessments/handlers";
import { registerAttachmentRoutes } from "./routes/attachments/handlers";
import { registerEvalRequestRoutes } from "./routes/eval-requests/handlers";
import { registerKeyRoutes } from "./routes/keys/handlers";
import { registerLocalStorageRoutes } from "./routes/storage/handlers";
import { createAttachmentStorage, LocalAttachmentStorage, type AttachmentStorage } from "./storage/index";
import { createLlmJudge } from "./settlement/llm-judge";
import { SettlementWorker } from "./settlement/worker";

export { EVAL_BASE_PATH } from "./context";

export interface EvalDeps extends ApiDeps {
  /** Default: loadEvalConfig(process.env). */
  evalConfig?: EvalConfig;
  /** Default: the store EVAL_STORAGE selects. */
  storage?: AttachmentStorage;
  /** The service clock (submit times, windows, URL expiry); tests drive it. */
  now?: () => Date;
  /** Per-IP budget of `POST /keys`; default a PostgreSQL-backed one from EVAL_KEYS_RATE_LIMIT_*. */
  keyIssuanceLimiter?: RateLimiterAbstract;
}

/**
 * Evaluation API: routes mount under EVAL_BASE_PATH and answer bare bodies.
 * `/agents/*` needs an API key; `POST /keys` and the built-in store's signed
 * URLs do not.
 */
export function createEvalApp(deps: EvalDeps) {
  const { config, pool } = deps;
  const evalConfig = deps.evalConfig ?? loadEvalConfig();
  const logger = deps.logger.child({ service: "eval-api" });
  const app = createApp({ logger });
  const limiter = deps.rateLimiter ?? createPostgresRateLimiter(pool, { ...config.rateLimit, keyPrefix: "eval" });
  const keyIssuanceLimiter =
    deps.keyIssuanceLimiter ?? createPostgresRateLimiter(pool, { ...evalConfig.keys.rateLimit, keyPrefix: "eval-keys" });
  const ctx: EvalContext = {
    db: deps.db,
    config: evalConfig,
    storage: deps.storage ?? createAttachmentStorage(evalConfig),
    now: deps.now ?? (() => new Date()),
    logger,
  };

  app.use(`${EVAL_BASE_PATH}/*`, rateLimit(limiter, { trustProxy: config.trustProxy }));

  const router = createRouter();
  // Every /agents route: an API key, then the caller's own budget.
  router.use("/agents/*", evalApiKeyAuth(deps.db), rateLimit(limiter, { trustProxy: config.trustProxy }));
  registerKeyRoutes(router, ctx, { limiter: keyIssuanceLimiter, trustProxy: config.trustProxy });
  registerAttachmentRoutes(router, ctx);
  registerEvalRequestRoutes(router, ctx);
  registerAssessmentRoutes(router, ctx);
  if (ctx.storage instanceof LocalAttachmentStorage) registerLocalStorageRoutes(router, ctx, ctx.storage);
  app.route(EVAL_BASE_PATH, router);

  app.openAPIRegistry.registerComponent("securitySchemes", "ApiKeyBearer", {
    type: "http",
    scheme: "bearer",
    description: "`Authorization: Bearer <API key>`",
  });
  app.openAPIRegistry.registerComponent("securitySchemes", "ApiKeyHeader", {
    type: "apiKey",
    in: "header",
    name: "x-api-key",
    description: "`x-api-key: <API key>`",
  });
  registerReadiness(app, { pool, viewsSchema: config.ponderViewsSchema, ponderUrl: config.ponderUrl });
  mountOpenApi(app, { title: "Data-Market Evaluation API", version: "1.0.0" });
  return app;
}

/**
 * The settlement worker the service runs beside the app (not started), or
 * null when EVAL_WORKER_ENABLED=false.
 */
export function createEvalSettlementWorker(
  deps: Pick<EvalDeps, "db" | "logger" | "evalConfig" | "storage" | "now">,
): SettlementWorker | null {
  const evalConfig = deps.evalConfig ?? loadEvalConfig();
  if (!evalConfig.worker.enabled) return null;
  return new SettlementWorker({
    db: deps.db,
    storage: deps.storage ?? createAttachmentStorage(evalConfig),
    logger: deps.logger.child({ service: "eval-settlement" }),
    judge: evalConfig.judge ? createLlmJudge(evalConfig.judge) : null,
    judgeTimeoutSeconds: evalConfig.judge?.timeoutSeconds,
    pollSeconds: evalConfig.worker.pollSeconds,
    ...(deps.now ? { now: deps.now } : {}),
  });
}
