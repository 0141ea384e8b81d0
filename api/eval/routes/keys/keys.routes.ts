import { errorResponse, jsonContent } from "../../../http/openapi";
import { routeKind } from "../../../http/route";
import { LIMITS } from "../../limits";
import { jsonBodyLimit, keyIssuance } from "../../middleware";
import { IssuedKeySchema, KeyRequestSchema } from "../../schemas";
import { bodyErrors } from "../kinds";

/** Open key issuance: no key yet, its own per-IP budget (`keyIssuance`) and a JSON body limit. */
const route = routeKind({
  tags: ["API keys"],
  middleware: [keyIssuance, jsonBodyLimit(LIMITS.smallBodyBytes)],
  responses: bodyErrors,
});

export const issueKeyRoute = route("post", "/keys", "issueKey", {
  summary: "Create an account with a new API key (when open issuance is enabled)",
  description:
    "Unauthenticated and rate-limited per client IP. Every call creates a new account holding one key; the key is shown once.",
  request: {
    body: { required: false, content: { "application/json": { schema: KeyRequestSchema } } },
  },
  responses: {
    201: jsonContent(IssuedKeySchema, "The new key (shown once)"),
    400: errorResponse("Invalid body"),
    403: errorResponse("Key issuance is disabled on this deployment"),
    429: errorResponse("Too many keys requested from this IP; see Retry-After"),
  },
});
