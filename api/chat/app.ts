import { createRoute, z, type OpenAPIHono } from "@hono/zod-openapi";
import type { ApiDeps } from "../deps";
import { createApp } from "../http/create-app";
import { jsonContent, mountOpenApi } from "../http/openapi";
import { createPostgresRateLimiter, rateLimit } from "../http/rate-limit";
import { registerReadiness } from "../http/readiness";
import type { AppEnv } from "../http/types";
import { loadChatConfig, type ChatConfig } from "./config";
import { chatAuthMiddleware, indexedMiddleware, type ChatContext } from "./context";
import { authRoutes } from "./routes/auth/routes";
import { chatRoutes } from "./routes/chat/routes";
import { emissionsRoutes } from "./routes/emissions/routes";
import { podRoutes } from "./routes/pods/routes";
import { createAssistant } from "./services/assistant/assistant";
import { KnowledgeBase } from "./services/assistant/knowledge";
import { createLlm, type Llm } from "./services/assistant/llm";
import { createChatChain, type ChatChain } from "./services/chain";
import { createPostgresSendLock } from "./services/send-lock";
import { PodLocks } from "./services/pod-locks";
import { createPostFetcher, type PostFetcher } from "./services/post-fetcher";
import { createSlopChecker } from "./services/slop-check";

const HealthSchema = z
  .object({
    status: z.literal("ok"),
    service: z.string(),
    started: z.string().openapi({ format: "date-time" }),
    uptime: z.number().openapi({ description: "Seconds since the service started" }),
  })
  .openapi("Health");

const healthRoute = createRoute({
  method: "get",
  path: "/health",
  tags: ["Operations"],
  summary: "Liveness of the chat server",
  responses: { 200: jsonContent(HealthSchema, "The service is up") },
});

const PROBE_PATHS = new Set(["/health", "/ready"]);

function registerHealth(app: OpenAPIHono<AppEnv>, startedAt: Date): void {
  app.openapi(healthRoute, (c) =>
    c.json(
      {
        status: "ok" as const,
        service: "chat-server",
        started: startedAt.toISOString(),
        uptime: Math.floor((Date.now() - startedAt.getTime()) / 1000),
      },
      200,
    ),
  );
}

/** What tests (or an embedding process) may supply instead of the environment's settings. */
export interface ChatAppOptions {
  /** Default: `loadChatConfig(process.env)`. */
  config?: ChatConfig;
  /** Default: built from `config.protocol` and `config.serverPrivateKey`. */
  chain?: ChatChain;
  postFetcher?: PostFetcher;
  /** Default: an OpenAI-compatible client when `config.llm` is set. */
  llm?: Llm;
  /** Clock for nonce, session and chat expiry. */
  now?: () => Date;
}

/** Chat server (agent API): no version prefix, bare bodies. */
export function createChatApp(deps: ApiDeps & { startedAt?: Date; chat?: ChatAppOptions }) {
  const { config: apiConfig, pool } = deps;
  const options = deps.chat ?? {};
  const logger = deps.logger.child({ service: "chat-server" });
  const app = createApp({ logger });
  const limiter = deps.rateLimiter ?? createPostgresRateLimiter(pool, { ...apiConfig.rateLimit, keyPrefix: "chat" });
  const ipAndIdentityLimit = rateLimit(limiter, {
    trustProxy: apiConfig.trustProxy,
    skip: (c) => PROBE_PATHS.has(c.req.path),
  });

  const config = options.config ?? loadChatConfig();
  if (!config.protocol) logger.warn({ reason: config.protocolError }, "no chain configured: mint, claim and emissions answer 503");
  const chain =
    options.chain ??
    (config.protocol
      ? createChatChain(config.protocol, config.serverPrivateKey, (wallet) => createPostgresSendLock(pool, wallet))
      : undefined);
  const llm = options.llm ?? (config.llm ? createLlm(config.llm) : undefined);
  const now = options.now ?? (() => new Date());
  const knowledge = new KnowledgeBase({ docsDir: config.docsDir, specFile: config.specFile, logger });
  const ctx: ChatContext = {
    config,
    db: deps.db,
    pool,
    logger,
    viewsSchema: apiConfig.ponderViewsSchema,
    chain,
    postFetcher: options.postFetcher ?? createPostFetcher(config.postSource, logger),
    slopChecker: createSlopChecker(llm, logger),
    llm,
    knowledge,
    assistant: createAssistant({
      knowledge,
      llm,
      live: { db: deps.db, pool, viewsSchema: apiConfig.ponderViewsSchema, chain, logger },
      logger,
    }),
    podLocks: new PodLocks(pool),
    now,
    auth: chatAuthMiddleware(deps, ipAndIdentityLimit, now),
    indexed: indexedMiddleware(pool, apiConfig.ponderViewsSchema),
  };

  app.use(ipAndIdentityLimit);
  app.openAPIRegistry.registerComponent("securitySchemes", "walletSession", {
    type: "http",
    scheme: "bearer",
    description: "Session token from POST /auth/verify, valid 24 hours",
  });
  registerHealth(app, deps.startedAt ?? new Date());
  registerReadiness(app, { pool, viewsSchema: apiConfig.ponderViewsSchema, ponderUrl: apiConfig.ponderUrl });
  app.route("/", authRoutes(ctx));
  app.route("/", podRoutes(ctx));
  app.route("/", emissionsRoutes(ctx));
  app.route("/", chatRoutes(ctx));
  mountOpenApi(app, { title: "Data-Market Chat Server", version: "1.0.0" });
  return app;
}
