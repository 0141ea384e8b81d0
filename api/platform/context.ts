import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Context, ErrorHandler, MiddlewareHandler } from "hono";
import { createMiddleware } from "hono/factory";
import type { RateLimiterAbstract } from "rate-limiter-flexible";
import type { Abi, Address, ContractEventName, PublicClient } from "viem";
import { createChainClient } from "../../chain/client";
import { loadProtocolConfig, type ProtocolConfig } from "../../chain/protocol-config";
import {
  ChainUnavailableError,
  TxVerificationError,
  verifyTransaction,
  type TxExpectation,
  type VerifiedTx,
} from "../../chain/verify-tx";
import type { ApiDeps } from "../deps";
import { loadIdpConfig, requireUser, type IdpConfig, type PlatformUser, type UserEnv } from "../http/auth/idp-cookie";
import { localStatsApiKey } from "../http/auth/stats-key";
import { createRouter } from "../http/create-app";
import { badRequest, HttpError, onError, serviceUnavailable, unauthorized } from "../http/errors";
import { createPostgresRateLimiter, rateLimit } from "../http/rate-limit";
import { requireChain } from "../http/readiness";
import type { AppEnv } from "../http/types";
import { loadPlatformConfig, type PlatformConfig } from "./config";
import { createPriceSource, type PriceSource } from "./services/price";

/** The protocol's chain as the platform sees it: a read client and the contract addresses. */
export interface PlatformChain {
  client: PublicClient;
  protocol: ProtocolConfig;
}

/**
 * What the Platform API needs beyond `ApiDeps`. Built once per app from the environment
 * (`createPlatformContext`), or injected by tests through `PlatformDeps.platform`.
 */
export interface PlatformContext {
  config: PlatformConfig;
  /** The chain client and addresses; a 503 HttpError when no chain is configured. */
  chain(): PlatformChain;
  /** Verification settings of the `idp-token` cookie. */
  idp(): Promise<IdpConfig>;
  /** Source of `corePriceUSD` and the stats' USD estimates. */
  price: PriceSource;
  /** Keys accepted by the stats bearer routes. */
  statsApiKeys(): readonly string[];
}

/** `ApiDeps` plus an optional injected platform context (tests). */
export type PlatformDeps = ApiDeps & { platform?: PlatformContext };

export interface PlatformContextOptions {
  env?: NodeJS.ProcessEnv;
  config?: PlatformConfig;
  /** A ready chain (tests: the devnet's RPC and deployment); default: loadProtocolConfig(env), built on first use. */
  chain?: PlatformChain;
  idp?: IdpConfig | Promise<IdpConfig>;
  price?: PriceSource;
  /** Receives the generated local stats key notice. */
  logger?: ApiDeps["logger"];
}

function lazy<T>(build: () => T): () => T {
  let built: { value: T } | undefined;
  return () => (built ??= { value: build() }).value;
}

export function createPlatformContext(options: PlatformContextOptions = {}): PlatformContext {
  const env = options.env ?? process.env;
  const config = options.config ?? loadPlatformConfig(env);

  let chainError: unknown;
  const chain = lazy<PlatformChain | undefined>(() => {
    if (options.chain) return options.chain;
    try {
      const protocol = loadProtocolConfig(env);
      return { protocol, client: createChainClient(protocol) };
    } catch (error) {
      chainError = error;
      return undefined;
    }
  });
  let warned = false;
  const requireChainConfig = (): PlatformChain => {
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
    options.logger?.info(
      { statsApiKey: key, file: config.statsApiKeyFile, created },
      "local stats API key (Authorization: Bearer <key>)",
    );
    return [key];
  });

  return {
    config,
    chain: requireChainConfig,
    idp,
    price: options.price ?? createPriceSource(config.price, () => requireChainConfig().client),
    statsApiKeys,
  };
}

const contexts = new WeakMap<ApiDeps, PlatformContext>();

/** The platform context of an app: the injected one, else one built from process.env (once per deps object). */
export function platformContext(deps: PlatformDeps): PlatformContext {
  if (deps.platform) return deps.platform;
  let context = contexts.get(deps);
  if (!context) {
    context = createPlatformContext({ logger: deps.logger });
    contexts.set(deps, context);
  }
  return context;
}

const identityLimiters = new WeakMap<ApiDeps, RateLimiterAbstract>();

/** The limiter the app charges per IP; charged again per authenticated identity (same budget table and prefix). */
export function identityLimiter(deps: ApiDeps): RateLimiterAbstract {
  if (deps.rateLimiter) return deps.rateLimiter;
  let limiter = identityLimiters.get(deps);
  if (!limiter) {
    limiter = createPostgresRateLimiter(deps.pool, { ...deps.config.rateLimit, keyPrefix: "platform" });
    identityLimiters.set(deps, limiter);
  }
  return limiter;
}

/**
 * Cookie auth for a route's `middleware`: the `idp-token` cookie (401 {"error":"Unauthorized"} on any
 * failure), then the per-identity rate limit. Handlers read the user with `c.get("user")`.
 */
export function cookieAuth(deps: PlatformDeps): MiddlewareHandler<AppEnv>[] {
  const context = platformContext(deps);
  const authenticate = createMiddleware<AppEnv>(async (c, next) => {
    const config = await context.idp();
    return requireUser(deps.db, config)(c as unknown as Context<UserEnv>, next);
  });
  return [authenticate, rateLimit(identityLimiter(deps), { trustProxy: deps.config.trustProxy })];
}

/** The user `cookieAuth` authenticated (401 when the route has no cookie auth). */
export function currentUser(c: Context<AppEnv>): PlatformUser {
  const user = (c as unknown as Context<UserEnv>).get("user");
  if (!user) throw unauthorized();
  return user;
}

/** 503 {"error":"Indexer not ready"} until the indexer's views exist; for routes that read chain tables. */
export function chainReady(deps: ApiDeps): MiddlewareHandler<AppEnv> {
  return requireChain(deps.pool, deps.config.ponderViewsSchema);
}

/** The caller's linked wallet, or 400 {"error":"No wallet linked to this account"}. */
export function requireWallet(user: Pick<PlatformUser, "walletAddress">): Address {
  if (!user.walletAddress) throw badRequest("No wallet linked to this account");
  return user.walletAddress;
}

/** Chain verification errors as HTTP answers: TxVerificationError → 400, ChainUnavailableError → 503. */
export function chainErrorToHttp(error: unknown): unknown {
  if (error instanceof TxVerificationError) return new HttpError(400, error.message);
  if (error instanceof ChainUnavailableError) return serviceUnavailable(error.message);
  return error;
}

/** `verifyTransaction` against the platform's chain, with the platform's confirmation policy; errors as HttpErrors. */
export async function verifyOnChain<TAbi extends Abi, TEventName extends ContractEventName<TAbi>>(
  context: PlatformContext,
  expectation: Omit<TxExpectation<TAbi, TEventName>, "minConfirmations">,
): Promise<VerifiedTx<TAbi, TEventName>> {
  const { client } = context.chain();
  try {
    return await verifyTransaction(client, { ...expectation, minConfirmations: context.config.txMinConfirmations });
  } catch (error) {
    throw chainErrorToHttp(error);
  }
}

/** The surfaces' error handler, with chain verification errors mapped (safety net for errors not converted earlier). */
export const platformOnError: ErrorHandler<AppEnv> = (error, c) => onError(chainErrorToHttp(error) as Error, c);

/** A resource router of the Platform API: flat 400s on validation failures, chain errors mapped. */
export function createPlatformRouter(): OpenAPIHono<AppEnv> {
  const router = createRouter();
  router.onError(platformOnError);
  return router;
}
