import { createRoute, z, type OpenAPIHono } from "@hono/zod-openapi";
import type { ApiDeps } from "../deps";
import { createApp } from "../http/create-app";
import { jsonContent, mountOpenApi } from "../http/openapi";
import { createPostgresRateLimiter, rateLimit } from "../http/rate-limit";
import { registerReadiness } from "../http/readiness";
import type { AppEnv } from "../http/types";

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

/** Chat server (agent API): no version prefix, bare bodies. */
export function createChatApp(deps: ApiDeps & { startedAt?: Date }) {
  const { config, pool } = deps;
  const app = createApp({ logger: deps.logger.child({ service: "chat-server" }) });
  const limiter = deps.rateLimiter ?? createPostgresRateLimiter(pool, { ...config.rateLimit, keyPrefix: "chat" });

  app.use(rateLimit(limiter, { trustProxy: config.trustProxy, skip: (c) => PROBE_PATHS.has(c.req.path) }));
  registerHealth(app, deps.startedAt ?? new Date());
  registerReadiness(app, { pool, viewsSchema: config.ponderViewsSchema, ponderUrl: config.ponderUrl });
  mountOpenApi(app, { title: "Data-Market Chat Server", version: "1.0.0" });
  return app;
}
