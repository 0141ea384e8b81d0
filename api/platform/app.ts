import { mountGraphqlPlayground } from "../http/graphql-playground";
import { mountReference } from "../http/reference";
import { PLATFORM_REFERENCE } from "./reference";
import { createApp } from "../http/create-app";
import { provideServices } from "../http/middleware";

import { SURFACE_BODY_LIMITS } from "../http/body-limit";
import { registerHealth, registerReadiness } from "../http/readiness";
import { createPlatformReadCache } from "./read-cache";
import { createPlatformServices, type PlatformDeps, type PlatformEnv } from "./app-services";
import { agentsRouter } from "./routes/agents/agents.index";
import { commentsRouter } from "./routes/comments/comments.index";
import { datasetsRouter } from "./routes/datasets/datasets.index";
import { eventsRouter } from "./routes/events/events.index";
import { feedbackRouter } from "./routes/feedback/feedback.index";
import { locksRouter } from "./routes/locks/locks.index";
import { podsRouter } from "./routes/pods/pods.index";
import { stakesRouter } from "./routes/stakes/stakes.index";
import { statsRouter } from "./routes/stats/stats.index";
import { subnetsRouter } from "./routes/subnets/subnets.index";
import { subscriptionsRouter } from "./routes/subscriptions/subscriptions.index";
import { votesRouter } from "./routes/votes/votes.index";
import { walletsRouter } from "./routes/wallets/wallets.index";
import { webhooksRouter } from "./routes/webhooks/webhooks.index";
import { AGENT_BEARER_SCHEME, IDP_COOKIE_SCHEME } from "./schemas/common";
import { STATS_KEY_SCHEME } from "./routes/stats/stats.routes";

export const PLATFORM_BASE_PATH = "/api/v1";

/** The resource routers, in the order they are mounted under PLATFORM_BASE_PATH. */
const routers = [
  statsRouter,
  podsRouter,
  subnetsRouter,
  commentsRouter,
  votesRouter,
  feedbackRouter,
  stakesRouter,
  locksRouter,
  agentsRouter,
  subscriptionsRouter,
  datasetsRouter,
  walletsRouter,
  eventsRouter,
  webhooksRouter,
];

/**
 * Platform API. Each resource (api/platform/routes/<name>/) is a router made in `<name>.index.ts`;
 * they mount under PLATFORM_BASE_PATH and answer `{ "data": ... }`. Handlers read their
 * dependencies from `c.get("services")` (PlatformServices), set once here. `close()` stops what the app
 * runs in the background (the event feed's poller): open event streams end at their next wake-up.
 */
export function createPlatformApp(deps: PlatformDeps) {
  const ctx = createPlatformServices(deps);
  const logger = deps.logger.child({ service: "platform-api" });
  const app = createApp<PlatformEnv>({
    logger,
    maxBodyBytes: SURFACE_BODY_LIMITS.platform,
    surface: { name: "platform", config: deps.config },
  });
  app.use(provideServices(ctx));
  app.use(`${PLATFORM_BASE_PATH}/*`, ctx.identityRateLimit);
  const readCache = createPlatformReadCache(deps, PLATFORM_BASE_PATH, ctx.platform.config.readCache);
  if (readCache) app.use(`${PLATFORM_BASE_PATH}/*`, readCache.middleware);
  registerReadiness(app, {
    surface: "Platform",
    pool: ctx.pool,
    viewsSchema: ctx.viewsSchema,
    ponderUrl: deps.config.ponderUrl,
    draining: () => deps.lifecycle?.draining === true,
  });
  registerHealth(app, { surface: "Platform", service: "platform-api", pool: ctx.pool, viewsSchema: ctx.viewsSchema });
  for (const router of routers) app.route(PLATFORM_BASE_PATH, router);
  app.openAPIRegistry.registerComponent("securitySchemes", "idpCookie", IDP_COOKIE_SCHEME);
  app.openAPIRegistry.registerComponent("securitySchemes", "agentBearer", AGENT_BEARER_SCHEME);
  app.openAPIRegistry.registerComponent("securitySchemes", "statsKey", STATS_KEY_SCHEME);
  // Resolve the stats keys now, so that a key generated for the local setup is announced at start.
  ctx.platform.statsApiKeys();
  mountReference(app, { ...PLATFORM_REFERENCE, signIn: ctx.platform.docsSignIn() });
  mountGraphqlPlayground(app, { ponderUrl: deps.config.ponderUrl, rateLimit: ctx.identityRateLimit });
  return Object.assign(app, { close: () => ctx.eventFeed.close() });
}
