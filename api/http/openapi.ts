import { z, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "./types";

export const ErrorSchema = z
  .object({ error: z.string().openapi({ example: "Unauthorized" }) })
  .openapi("Error", { description: "Every error response of every surface" });

/** A JSON response entry for `createRoute({ responses })`. */
export function jsonContent<T extends z.ZodType>(schema: T, description: string) {
  return { content: { "application/json": { schema } }, description };
}

/** A required JSON request body for `request.body`. */
export function jsonBody<T extends z.ZodType>(schema: T) {
  return { content: { "application/json": { schema } }, required: true };
}

export const errorResponse = (description: string) => jsonContent(ErrorSchema, description);

/** The error responses most operations share. */
export const commonErrors = {
  400: errorResponse("Invalid request (the message names the failing field)"),
  401: errorResponse('Missing, expired or invalid credentials: `{"error":"Unauthorized"}`'),
  404: errorResponse("Unknown id, or a record of another caller"),
  429: errorResponse("Rate limit exceeded; see Retry-After"),
} as const;

/** Platform API success bodies: `{ "data": ... }`. */
export function dataEnvelope<T extends z.ZodType>(schema: T) {
  return z.object({ data: schema });
}

export interface OpenApiInfo {
  title: string;
  version: string;
  /** Markdown shown at the top of the reference: the surface, its credentials, its links. */
  description?: string;
  servers?: { url: string; description?: string }[];
}

/** Serves the OpenAPI 3.1 document of every route registered with `app.openapi(...)` at `GET /openapi.json`. */
export function mountOpenApi<E extends AppEnv>(app: OpenAPIHono<E>, { title, version, description, servers }: OpenApiInfo): void {
  const info = { title, version, ...(description ? { description } : {}) };
  app.get("/openapi.json", (c) => c.json(app.getOpenAPI31Document({ openapi: "3.1.0", info, ...(servers ? { servers } : {}) })));
}
