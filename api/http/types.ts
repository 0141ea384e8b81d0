import type { RouteConfig, RouteConfigToEnv, RouteHandler } from "@hono/zod-openapi";
import type { Env, MiddlewareHandler } from "hono";
import type pg from "pg";
import type { Logger } from "pino";
import type { OffchainDb } from "../db/client";

/** Who a request acts as, set by the auth middleware of each surface. */
export interface Identity {
  kind: "user" | "agent" | "wallet" | "eval-account";
  id: string;
}

/** The three HTTP surfaces; labels their metrics. */
export type Surface = "platform" | "chat" | "eval";

/** The budget of a request closest to its limit, shown in its RateLimit-* headers. */
export interface BudgetStanding {
  limit: number;
  remaining: number;
  resetSeconds: number;
}

/**
 * What a request was charged (api/http/rate-limit.ts): the keys (so the middleware can run both
 * before and after authentication without charging the IP twice) and its tightest budget so far.
 */
export interface RequestBudgets {
  charged: string[];
  standing?: BudgetStanding;
}

/**
 * Read with `c.get(name)`, never `c.var.name`: Hono's `c.var` builds a new object of every
 * variable on each access (~0.6 µs with eight set), several times a request.
 */
export interface AppVariables {
  requestId: string;
  /** The surface that serves the request (set by createApp's metrics middleware). */
  surface?: Surface;
  /** Request-scoped logger carrying the request id. */
  logger: Logger;
  identity?: Identity;
  rateLimitBudgets?: RequestBudgets;
  /** Set when the response cache answered the request from a kept answer (its request line is at debug). */
  answeredFromCache?: boolean;
  /** The headers naming the indexed block a chain-backed answer reflects (chainReady): kept with a cached answer. */
  indexedBlockHeaders?: Record<string, string>;
}

export interface AppEnv {
  Variables: AppVariables;
}

/**
 * What every surface's handlers and shared middleware read from `c.get("services")`: built once per app
 * and set by the app's first middleware (`provideServices`). Each surface extends it.
 */
export interface SurfaceServices {
  db: OffchainDb;
  pool: pg.Pool;
  /** The indexer's views schema (chain tables as the API reads them). */
  viewsSchema: string;
  /** Charges the request's identity (set by an auth middleware) against the surface's budget. */
  identityRateLimit: MiddlewareHandler<AppEnv>;
}

/** The env of a surface whose services are `C`. */
export type ServicesEnv<C extends SurfaceServices> = { Variables: AppVariables & { services: C } };

/** A handler typed by its route: the route's middleware adds its variables (the caller) to `E`. */
export type AppRouteHandler<R extends RouteConfig, E extends Env> = RouteHandler<R, E & RouteConfigToEnv<R>>;
