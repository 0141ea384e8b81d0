import { OpenAPIHono, type Hook } from "@hono/zod-openapi";
import type { Env, ErrorHandler, MiddlewareHandler, NotFoundHandler } from "hono";
import type { Logger } from "pino";
import type { z } from "zod";
import type { Context } from "hono";
import type { ApiConfig } from "../config";
import { setAnswerHeader } from "./answer-headers";
import { limitBodyExcept } from "./body-limit";
import { corsMiddleware } from "./cors";
import { errorBody, onError, onNotFound } from "./errors";
import { createLogger, requestLogger } from "./logger";
import { METRICS_PATH, metricsHandler, requestMetrics } from "./metrics";
import type { AppEnv, Surface } from "./types";
import { requestHeader } from "./request-headers";
import { readRoute } from "./read-route";
import { readReplicas } from "../db/read-replicas";
import { REQUEST_ID_HEADER, requestIdFor } from "./request-id";

const DEFAULT_MAX_BODY_BYTES = 64 * 1024;

/** "podName: Too small: expected string to have >=3 characters; url: Invalid URL" */
export function formatValidationError(error: z.core.$ZodError): string {
  return error.issues
    .map((issue) => (issue.path.length > 0 ? `${issue.path.map(String).join(".")}: ${issue.message}` : issue.message))
    .join("; ");
}

// biome-ignore lint/suspicious/noExplicitAny: one hook serves the routers of every env and route
const validationHook: Hook<any, any, any, any> = (result, c) => {
  if (!result.success) return c.json(errorBody(formatValidationError(result.error)), 400);
};

/**
 * The one router factory of every surface: the root app and each resource's `<name>.index.ts`.
 * Request validation failures become flat 400 errors.
 */
export function createRouter<E extends Env = AppEnv>(): OpenAPIHono<E> {
  return new OpenAPIHono<E>({ defaultHook: validationHook });
}

/** `c.get("requestId")` (see requestIdFor), echoed in `X-Request-Id` on the finished answer. */
const requestId: MiddlewareHandler<AppEnv> = async (c, next) => {
  const id = requestIdFor(requestHeader(c, "x-request-id"));
  c.set("requestId", id);
  await next();
  setAnswerHeader(c, REQUEST_ID_HEADER, id);
};

export interface CreateAppOptions {
  logger: Logger;
  /** Largest request body of the surface (413 beyond); default 64 KB. See SURFACE_BODY_LIMITS. */
  maxBodyBytes?: number;
  /** Requests whose route streams and caps its own body (e.g. a signed upload). */
  bodyLimitExempt?: (c: Context) => boolean;
  /** Which surface this is and the process settings it needs: request metrics, `GET /metrics`, CORS. */
  surface?: { name: Surface; config: Pick<ApiConfig, "host" | "corsOrigins" | "metricsToken"> };
}

/**
 * The root app of a surface: request id, request log, flat JSON errors and 404s; with `surface`,
 * also its request metrics, `GET /metrics` (api/http/metrics.ts; before any rate limit, and not
 * counted itself) and CORS (api/http/cors.ts).
 */
export function createApp<E extends AppEnv = AppEnv>({ logger, maxBodyBytes, bodyLimitExempt, surface }: CreateAppOptions): OpenAPIHono<E> {
  const app = createRouter<E>();
  app.use(requestId);
  // DATABASE_READ_URL: which reads may go to a hot standby, and the read-after cookie of writes
  const replicas = readReplicas();
  if (replicas) app.use(readRoute(replicas));
  if (surface) app.use(requestMetrics(surface.name));
  app.use(requestLogger(logger));
  const cors = surface && corsMiddleware(surface.config.corsOrigins);
  if (cors) app.use(cors);
  const limitBody = limitBodyExcept(maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES, bodyLimitExempt);
  // a GET or HEAD has no body here (the limit would find none), and looking for one makes the
  // Node adapter build a full WHATWG Request: most of a cached read's cost
  app.use((c, next) => (c.req.method === "GET" || c.req.method === "HEAD" ? next() : limitBody(c, next)));
  if (surface) app.get(METRICS_PATH, metricsHandler({ token: surface.config.metricsToken, host: surface.config.host }));
  app.onError(onError as unknown as ErrorHandler<E>);
  app.notFound(onNotFound as unknown as NotFoundHandler<E>);
  return app;
}

/** Mounts `router` at the root of a fully wired app, for `app.request(...)` in tests. */
export function createTestApp(router: OpenAPIHono<AppEnv>, logger: Logger = createLogger("silent")) {
  return createApp({ logger }).route("/", router);
}
