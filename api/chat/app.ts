import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { mountReference } from "../http/reference";
import { CHAT_REFERENCE } from "./reference";
import { type ApiDeps, createApiChain } from "../deps";
import { SURFACE_BODY_LIMITS } from "../http/body-limit";
import { createApp } from "../http/create-app";
import { isDocsPath } from "../http/docs";
import { provideServices } from "../http/middleware";
import { observeServerWallet } from "../http/metrics";
import { jsonContent } from "../http/openapi";
import { createSurfaceRateLimiter } from "../http/surface-rate-limiter";
import { rateLimit } from "../http/rate-limit";
import { healthSchema, indexerLagForHealth, registerReadiness } from "../http/readiness";
import { loadChatConfig, type ChatConfig } from "./config";
import type { ChatServices, ChatEnv } from "./app-services";
import { authRouter } from "./routes/auth/auth.index";
import { chatRouter } from "./routes/chat/chat.index";
import { emissionsRouter } from "./routes/emissions/emissions.index";
import { podsRouter } from "./routes/pods/pods.index";
import { createAssistant } from "./services/assistant/assistant";
import { KnowledgeBase } from "./services/assistant/knowledge";
import { createLlm, type Llm } from "./services/assistant/llm";
import { createChatChain, type ChatChain } from "./services/chain";
import { createPostgresSendLock } from "./services/send-lock";
import { PodLocks } from "./services/pod-locks";
import { createPostFetcher, type PostFetcher } from "./services/post-fetcher";
import { createSlopChecker } from "./services/slop-check";

const HealthSchema = healthSchema("Health", "chat-server");

const healthRoute = createRoute({
  operationId: "getHealth",
  method: "get",
  path: "/health",
  tags: ["Operations"],
  summary: "Liveness of the chat server",
  responses: { 200: jsonContent(HealthSchema, "The service is up") },
});

const PROBE_PATHS = new Set(["/health", "/ready"]);

function registerHealth(app: OpenAPIHono<ChatEnv>, startedAt: Date, pool: ApiDeps["pool"], viewsSchema: string): void {
  app.openapi(healthRoute, async (c) =>
    c.json(
      {
        status: "ok" as const,
        service: "chat-server",
        started: startedAt.toISOString(),
        uptime: Math.floor((Date.now() - startedAt.getTime()) / 1000),
        indexer: await indexerLagForHealth(pool, viewsSchema),
      },
      200,
    ),
  );
}

/** What tests (or an embedding process) may supply instead of the environment's settings. */
export interface ChatAppOptions {
  /** Default: `loadChatConfig(process.env)`. */
  config?: ChatConfig;
  /** Default: built on the process's chain (`ApiDeps.chain`, else `config.protocol`) with `config.serverPrivateKey`. */
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
  const app = createApp<ChatEnv>({
    logger,
    maxBodyBytes: SURFACE_BODY_LIMITS.chat,
    surface: { name: "chat", config: apiConfig },
  });
  const limiter =
deps.rateLimiter ?? createSurfaceRateLimiter(deps, "chat");
  const ipAndIdentityLimit = rateLimit(limiter, {
    trustProxy: apiConfig.trustProxy,
    skip: (c) => PROBE_PATHS.has(c.req.path) || isDocsPath(c.req.path),
  });

  const config = options.config ?? loadChatConfig();
  const apiChain = deps.chain ?? (config.protocol ? createApiChain(config.protocol) : undefined);
  if (!apiChain)
    logger.warn({ reason: config.protocolError }, "no chain configured: mint, claim and emissions answer 503");
  const chain =
    options.chain ??
    (apiChain
      ? createChatChain(apiChain, config.serverPrivateKey, (wallet) => createPostgresSendLock(pool, wallet))
      : undefined);
  if (chain?.wallet) observeServerWallet(chain.wallet.address, chain.wallet.pendingTransactions);
  const llm = options.llm ?? (config.llm ? createLlm(config.llm) : undefined);
  const now = options.now ?? (() => new Date());
  const knowledge = new KnowledgeBase({ docsDir: config.docsDir, specFile: config.specFile, logger });
  const ctx: ChatServices = {
    config,
    db: deps.db,
    pool,
    logger,
    viewsSchema: apiConfig.ponderViewsSchema,
    identityRateLimit: ipAndIdentityLimit,
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
  };

  app.use(provideServices(ctx));
  app.use(ipAndIdentityLimit);
  app.openAPIRegistry.registerComponent("securitySchemes", "walletSession", {
    type: "http",
    scheme: "bearer",
    description: "Session token from POST /auth/verify, valid 24 hours",
  });
  registerHealth(app, deps.startedAt ?? new Date(), pool, apiConfig.ponderViewsSchema);
  registerReadiness(app, {
    surface: "Chat",
    pool,
    viewsSchema: apiConfig.ponderViewsSchema,
    ponderUrl: apiConfig.ponderUrl,
    draining: () => deps.lifecycle?.draining === true,
  });
  for (const router of [authRouter, podsRouter, emissionsRouter, chatRouter]) app.route("/", router);
  mountReference(app, CHAT_REFERENCE);
  return app;
}
