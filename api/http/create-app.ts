import { OpenAPIHono, type Hook } from "@hono/zod-openapi";
import { requestId } from "hono/request-id";
import type { Logger } from "pino";
import type { z } from "zod";
import { errorBody, onError, onNotFound } from "./errors";
import { createLogger, requestLogger } from "./logger";
import type { AppEnv } from "./types";

/** "podName: Too small: expected string to have >=3 characters; url: Invalid URL" */
export function formatValidationError(error: z.core.$ZodError): string {
  return error.issues
    .map((issue) => (issue.path.length > 0 ? `${issue.path.map(String).join(".")}: ${issue.message}` : issue.message))
    .join("; ");
}

const validationHook: Hook<unknown, AppEnv, string, unknown> = (result, c) => {
  if (!result.success) return c.json(errorBody(formatValidationError(result.error)), 400);
};

/** A router for a group of routes; request validation failures become flat 400 errors. */
export function createRouter(): OpenAPIHono<AppEnv> {
  return new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
}

export interface CreateAppOptions {
  logger: Logger;
}

/** The root app of a surface: request id, request log, flat JSON errors and 404s. */
export function createApp({ logger }: CreateAppOptions): OpenAPIHono<AppEnv> {
  const app = createRouter();
  app.use(requestId());
  app.use(requestLogger(logger));
  app.onError(onError);
  app.notFound(onNotFound);
  return app;
}

/** Mounts `router` at the root of a fully wired app, for `app.request(...)` in tests. */
export function createTestApp(router: OpenAPIHono<AppEnv>, logger: Logger = createLogger("silent")) {
  return createApp({ logger }).route("/", router);
}
