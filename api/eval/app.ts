import type { RateLimiterAbstract } from "rate-limiter-flexible";
import type { ApiDeps } from "../deps";
import { mountReference } from "../http/reference";
import { EVAL_REFERENCE } from "./reference";
import { SURFACE_BODY_LIMITS } from "../http/body-limit";
import { createApp } from "../http/create-app";
import { provideServices } from "../http/middleware";
import { observeSettlementQueue } from "../http/metrics";
import { createSurfaceRateLimiter } from "../http/surface-rate-limiter";
import { createPostgresRateLimiter, rateLimit } from "../http/rate-limit";
import { registerHealth, registerReadiness } from "../http/readiness";
import { loadEvalConfig, type EvalConfig } from "./config";
import { EVAL_BASE_PATH, type EvalServices, type EvalEnv } from "./app-services";
import { accountAuth, perIpBudget } from "./middleware";
import { assessmentsRouter } from "./routes/assessments/assessments.index";
import { attachmentsRouter } from "./routes/attachments/attachments.index";
import { evalRequestsRouter } from "./routes/eval-requests/eval-requests.index";
import { keysRouter } from "./routes/keys/keys.index";
import { storageRouter } from "./routes/storage/storage.index";
import { createAttachmentStorage, LocalAttachmentStorage, type AttachmentStorage } from "./storage/index";
import { dueQueue } from "./repositories/settlement";
import { createLlmJudge } from "./settlement/llm-judge";
import { SettlementWorker } from "./settlement/worker";

export { EVAL_BASE_PATH } from "./app-services";

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
  const app = createApp<EvalEnv>({
    logger,
    maxBodyBytes: SURFACE_BODY_LIMITS.eval,
    bodyLimitExempt: (c) => c.req.method === "PUT" && c.req.path.startsWith(`${EVAL_BASE_PATH}/storage/uploads/`),
    surface: { name: "eval", config },
  });
  const limiter = deps.rateLimiter ?? createSurfaceRateLimiter(deps, "eval");
  const keyIssuanceLimiter =
    deps.keyIssuanceLimiter ?? createPostgresRateLimiter(pool, { ...evalConfig.keys.rateLimit, keyPrefix: "eval-keys" });
  const rateLimitByIpAndIdentity = rateLimit(limiter, { trustProxy: config.trustProxy });
  const ctx: EvalServices = {
    db: deps.db,
    pool,
    viewsSchema: config.ponderViewsSchema,
    identityRateLimit: rateLimitByIpAndIdentity,
    config: evalConfig,
    storage: deps.storage ?? createAttachmentStorage(evalConfig),
    now: deps.now ?? (() => new Date()),
    logger,
    keyIssuanceBudget: perIpBudget(keyIssuanceLimiter, config.trustProxy),
  };

  observeSettlementQueue(() => dueQueue(ctx.db, ctx.now()));
  app.use(provideServices(ctx));
  app.use(`${EVAL_BASE_PATH}/*`, rateLimitByIpAndIdentity);
  // Every /agents path (also an unknown one): an API key, then the caller's own budget.
  app.use(`${EVAL_BASE_PATH}/agents/*`, accountAuth);
  app.route(EVAL_BASE_PATH, keysRouter);
  // the /agents routers: their env adds `account`, which accountAuth (above) sets
  app.route(EVAL_BASE_PATH, attachmentsRouter as never);
  app.route(EVAL_BASE_PATH, evalRequestsRouter as never);
  app.route(EVAL_BASE_PATH, assessmentsRouter as never);
  if (ctx.storage instanceof LocalAttachmentStorage) app.route(EVAL_BASE_PATH, storageRouter);

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
  registerReadiness(app, {
    surface: "Eval",
    pool,
    viewsSchema: config.ponderViewsSchema,
    ponderUrl: config.ponderUrl,
    draining: () => deps.lifecycle?.draining === true,
  });
  registerHealth(app, { surface: "Eval", service: "eval-api", pool, viewsSchema: config.ponderViewsSchema });
  mountReference(app, EVAL_REFERENCE);
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
