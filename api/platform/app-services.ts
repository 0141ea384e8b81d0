import type { RouteConfig } from "@hono/zod-openapi";
import type { RateLimiterAbstract } from "rate-limiter-flexible";
import type { Address, Hash } from "viem";
import { loadProtocolConfig } from "../../chain/protocol-config";
import type { ApiConfig } from "../config";
import { type ApiChain, type ApiDeps, createApiChain } from "../deps";
import {
  IDP_COOKIE,
  loadIdpConfig,
  localIdpKeyPair,
  signLocalIdpToken,
  type IdpConfig,
  type PlatformUser,
} from "../http/auth/idp-cookie";
import { localAccountAddresses } from "../../chain/local-accounts";
import type { DocsSignIn } from "../http/docs";
import { parseEnv, processEnv } from "../env";
import { localStatsApiKey } from "../http/auth/stats-key";
import { badRequest, serviceUnavailable } from "../http/errors";
import { createSurfaceRateLimiter } from "../http/surface-rate-limiter";
import { observeBulkhead } from "../http/metrics";
import { rateLimit } from "../http/rate-limit";
import type { AppRouteHandler, ServicesEnv, SurfaceServices } from "../http/types";
import { createBulkhead, type Bulkhead } from "../lib/bulkhead";
import { loadAgentsConfig, loadPlatformConfig, type AgentsConfig, type PlatformConfig } from "./config";
import { EventFeed } from "./services/event-feed";
import { EVENT_BATCH, EventStreamSlots } from "./services/events";
import { createPriceSource, type PriceSource } from "./services/price";
import { assertPathMatch } from "./schemas/common";

/**
 * What the Platform API needs beyond `ApiDeps`. Built once per app from the environment
 * (`createPlatformRuntime`), or injected by tests through `PlatformDeps.platform`.
 */
export interface PlatformRuntime {
  config: PlatformConfig;
  /** The chain client and addresses; a 503 HttpError when no chain is configured. */
  chain(): ApiChain;
  /** Verification settings of the `idp-token` cookie. */
  idp(): Promise<IdpConfig>;
  /** Source of `corePriceUSD` and the stats' USD estimates. */
  price: PriceSource;
  /** Keys accepted by the stats bearer routes. */
  statsApiKeys(): readonly string[];
  /** Engagement and agent settings. */
  agents: AgentsConfig;
  /** The reference page's devnet sign-in: offered only with the local identity provider on a local setup. */
  docsSignIn(): DocsSignIn;
}

export interface PlatformRuntimeOptions {
  env?: NodeJS.ProcessEnv;
  config?: PlatformConfig;
  /** A ready chain (the process's, or in tests the devnet's); default: loadProtocolConfig(env), built on first use. */
  chain?: ApiChain;
  idp?: IdpConfig | Promise<IdpConfig>;
  price?: PriceSource;
  agents?: AgentsConfig;
  /** Receives the generated local stats key notice. */
  logger?: ApiDeps["logger"];
}

function lazy<T>(build: () => T): () => T {
  let built: { value: T } | undefined;
  return () => (built ??= { value: build() }).value;
}

export function createPlatformRuntime(options: PlatformRuntimeOptions = {}): PlatformRuntime {
  const env = options.env ?? processEnv();
  const config = options.config ?? loadPlatformConfig(env);

  let chainError: unknown;
  const chain = lazy<ApiChain | undefined>(() => {
    if (options.chain) return options.chain;
    try {
      return createApiChain(loadProtocolConfig(env));
    } catch (error) {
      chainError = error;
      return undefined;
    }
  });
  let warned = false;
  const requireChainConfig = (): ApiChain => {
    const value = chain();
    if (!value) {
      if (!warned) options.logger?.warn({ err: chainError }, "no chain configured for the platform API");
      warned = true;
      throw serviceUnavailable("Chain not configured");
    }
    return value;
  };

  const idp = lazy(() => Promise.resolve(options.idp ?? loadIdpConfig(env)));

  const statsApiKeys = lazy<readonly string[]>(() => {
    if (config.statsApiKeys.length > 0) return config.statsApiKeys;
    // Local setup without STATS_API_KEYS: a generated key kept in the data folder.
    const local = chain()?.protocol.local ?? false;
    if (!local) {
      options.logger?.warn("STATS_API_KEYS is unset: /stats/summary and /stats/subnets/{id} accept no key");
      return [];
    }
    const { key, created } = localStatsApiKey(config.statsApiKeyFile);
    // the key itself is never logged: it is read from the file
    options.logger?.info(
      { statsApiKeyFile: config.statsApiKeyFile, created },
      "local stats API key in its file (Authorization: Bearer <the file's content>)",
    );
    return [key];
  });

  const docsSignIn = (): DocsSignIn => {
    const e = parseEnv(env);
    if (e.NODE_ENV === "production") return { refused: "Devnet sign-in is not available in production mode" };
    if (options.idp || e.IDP_JWKS_URL || e.IDP_PUBLIC_KEY) {
      return { refused: "Devnet sign-in is available only with the local identity provider" };
    }
    const configured = chain();
    if (configured && !configured.protocol.local) return { refused: "Devnet sign-in is available only on a local chain" };
    return {
      cookieName: IDP_COOKIE,
      accounts: localAccountAddresses(),
      sign: async ({ label, address }) => {
        const { privateJwk } = await localIdpKeyPair(e.IDP_LOCAL_KEY_FILE);
        return signLocalIdpToken(
          { sub: `devnet-${label}`, wallet: address, username: label },
          { privateJwk, issuer: e.IDP_ISSUER, audience: e.IDP_AUDIENCE },
        );
      },
    };
  };

  return {
    config,
    chain: requireChainConfig,
    idp,
    docsSignIn,
    price: options.price ?? createPriceSource(config.price, () => requireChainConfig().client),
    statsApiKeys,
    agents: options.agents ?? loadAgentsConfig(env),
  };
}

/** `ApiDeps` plus an optional injected platform context and engagement settings (tests). */
export type PlatformDeps = ApiDeps & { platform?: PlatformRuntime; agentsConfig?: AgentsConfig };

/** What the Platform API's handlers and middleware read from `c.get("services")` (built once per app). */
export interface PlatformServices extends SurfaceServices {
  /** The limiter of the per-IP and per-identity budgets (identityRateLimit's). */
  rateLimiter: RateLimiterAbstract;
  api: ApiConfig;
  platform: PlatformRuntime;
  agents: AgentsConfig;
  /** Open GET /events streams of this app, capped by EVENTS_MAX_STREAMS. */
  eventStreams: EventStreamSlots;
  /** The one poller of the event log that every open GET /events stream of this app shares. */
  eventFeed: EventFeed;
  /** Dataset downloads being built and waiting (DATASET_MAX_CONCURRENT, DATASET_MAX_QUEUED). */
  datasetDownloads: Bulkhead;
}

export type PlatformEnv = ServicesEnv<PlatformServices>;

/** The services of one Platform API app: the injected context and settings, else ones built from process.env. */
export function createPlatformServices(deps: PlatformDeps): PlatformServices {
  const platform = deps.platform ?? createPlatformRuntime({ logger: deps.logger, chain: deps.chain });
  // counted in process, synced to PostgreSQL in batches: no database write per request
  const limiter =
deps.rateLimiter ?? createSurfaceRateLimiter(deps, "platform");
  const agents = deps.agentsConfig ?? platform.agents;
  const datasetDownloads = createBulkhead(agents.datasetDownloads);
  observeBulkhead("dataset_downloads", datasetDownloads);
  return {
    db: deps.db,
    pool: deps.pool,
    viewsSchema: deps.config.ponderViewsSchema,
    // one limiter for the per-IP and the per-identity budgets (same budget table and prefix)
    rateLimiter: limiter,
    identityRateLimit: rateLimit(limiter, { trustProxy: deps.config.trustProxy }),
    api: deps.config,
    platform,
    agents,
    eventStreams: new EventStreamSlots(platform.config.events.maxStreams),
    eventFeed: new EventFeed({
      db: deps.db,
      viewsSchema: deps.config.ponderViewsSchema,
      pollIntervalMs: platform.config.events.pollIntervalMs,
      batchSize: EVENT_BATCH,
      logger: deps.logger,
    }),
    datasetDownloads,
  };
}

/** The caller's linked wallet, or 400 {"error":"No wallet linked to this account"}. */
export function requireWallet(user: Pick<PlatformUser, "walletAddress">): Address {
  if (!user.walletAddress) throw badRequest("No wallet linked to this account");
  return user.walletAddress;
}

/**
 * A cookie route's on-chain step on the caller's own draft (mint, republish, publish, a setter),
 * as its service takes it: the body repeats the path's draft id as `field` (400 otherwise) and the
 * caller needs a linked wallet; the service verifies `txHash`.
 */
export function userDraftStep<F extends "podId" | "subnetId">(
  user: PlatformUser,
  field: F,
  draftId: string,
  body: Record<F, string> & { txHash: string },
) {
  assertPathMatch(field, body[field], draftId);
  const wallet = requireWallet(user);
  return { creator: { kind: "user" as const, userId: user.id }, wallet, draftId, txHash: body.txHash as Hash };
}

/** A Platform API handler typed by its route (the route's auth middleware types `c.get("user")` / `c.get("agent")`). */
export type PlatformHandler<R extends RouteConfig> = AppRouteHandler<R, PlatformEnv>;
