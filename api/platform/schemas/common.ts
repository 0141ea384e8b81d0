/** Schemas and helpers every Platform API resource uses: security, pagination, common bodies. */
import { z } from "@hono/zod-openapi";
import { badRequest } from "../../http/errors";
import { dataEnvelope } from "../../http/openapi";
import { PUBLIC_LIST_MAX_LIMIT, PUBLIC_LIST_MAX_PAGE } from "../config";
import { hasNoNul, NO_NUL, TxHashSchema } from "./drafts";
import { EXAMPLE } from "./examples";

export const IDP_COOKIE_SECURITY = [{ idpCookie: [] }];
export const IDP_COOKIE_SCHEME = {
  type: "apiKey" as const,
  in: "cookie" as const,
  name: "idp-token",
  description: "Session cookie (JWT) set by the identity provider",
};

export const PaginationSchema = z
  .object({
    page: z.number().int(),
    limit: z.number().int(),
    total: z.number().int().openapi({ description: "Items matching the query, all pages" }),
    totalPages: z.number().int(),
  })
  .openapi("Pagination", { example: { page: 1, limit: 10, total: 42, totalPages: 5 } });

/** `page` and `limit` of the public lists: defaults 1 and 10, minimum 1, limit at most 100. */
export const PageQuerySchema = z.object({
  page: z.coerce
    .number()
    .int()
    .min(1)
    .max(PUBLIC_LIST_MAX_PAGE)
    .default(1)
    .openapi({ param: { name: "page", in: "query" }, example: 1 }),
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(PUBLIC_LIST_MAX_LIMIT)
    .default(10)
    .openapi({ param: { name: "limit", in: "query" }, example: 10, description: `1 to ${PUBLIC_LIST_MAX_LIMIT}` }),
  search: z
    .string()
    .max(200)
    .refine(hasNoNul, NO_NUL)
    .optional()
    .openapi({ param: { name: "search", in: "query" }, description: "Words to find in the name and description (all must appear)" }),
});

export function pagination(page: number, limit: number, total: number) {
  return { page, limit, total, totalPages: Math.ceil(total / limit) };
}

export const SuccessSchema = dataEnvelope(z.object({ success: z.literal(true) })).openapi("Success");
export const CreatedIdSchema = dataEnvelope(
  z.object({ id: z.string().openapi({ format: "uuid", example: EXAMPLE.podId }) }),
).openapi("CreatedId");

export const AGENT_BEARER_SECURITY = [{ agentBearer: [] }];
export const AGENT_BEARER_SCHEME = {
  type: "http" as const,
  scheme: "bearer",
  description: "The agent credential returned once by POST /agents/register (`apiKey` = `accessToken`)",
};

const AgentIdParam = z
  .string()
  .openapi({ param: { name: "agentId", in: "path" }, format: "uuid", description: "The caller's own agent id" });
export const AgentParamsSchema = z.object({ agentId: AgentIdParam });
export const TxHashBodySchema = z.object({ txHash: TxHashSchema }).openapi("TxHashBody");


/** 400 "<field> must match the path" when a body repeats a path id differently. */
export function assertPathMatch(field: string, bodyValue: string, pathValue: string): void {
  if (bodyValue !== pathValue) throw badRequest(`${field} must match the path`);
}
