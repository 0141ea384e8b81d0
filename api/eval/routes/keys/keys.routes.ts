import { createRoute } from "@hono/zod-openapi";
import { errorResponse, jsonContent } from "../../../http/openapi";
import { LIMITS } from "../../limits";
import { jsonBodyLimit, keyIssuance } from "../../middleware";
import { IssuedKeySchema, KeyRequestSchema } from "../../schemas";
import { bodyErrors } from "../common";

export const issueKeyRoute = createRoute({
  operationId: "issueKey",
  method: "post",
  path: "/keys",
  tags: ["API keys"],
  summary: "Create an account with a new API key (when open issuance is enabled)",
  description:
    "Unauthenticated and rate-limited per client IP. Every call creates a new account holding one key; the key is shown once.",
  middleware: [keyIssuance, jsonBodyLimit(LIMITS.smallBodyBytes)] as const,
  request: {
    body: { required: false, content: { "application/json": { schema: KeyRequestSchema } } },
  },
  responses: {
    201: jsonContent(IssuedKeySchema, "The new key (shown once)"),
    400: errorResponse("Invalid body"),
    403: errorResponse("Key issuance is disabled on this deployment"),
    ...bodyErrors,
    429: errorResponse("Too many keys requested from this IP; see Retry-After"),
  },
});
