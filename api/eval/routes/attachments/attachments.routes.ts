import { createRoute } from "@hono/zod-openapi";
import { jsonContent } from "../../../http/openapi";
import { LIMITS } from "../../limits";
import { jsonBodyLimit } from "../../middleware";
import { AttachmentRequestSchema, AttachmentUploadSchema } from "../../schemas";
import { API_KEY_SECURITY, apiKeyErrors, bodyErrors } from "../common";

export const requestUploadRoute = createRoute({
  operationId: "requestUpload",
  method: "post",
  path: "/agents/eval-requests/attachments",
  tags: ["Attachments"],
  summary: "Get a URL to upload one attachment",
  description:
    "Returns a `key` and an `uploadUrl` valid 5 minutes that accepts only HTTP PUT of the file bytes. " +
    "Then submit with `attachments: [{key, filename, contentType}]`. PNG, JPEG, WebP or PDF, up to 2 MB; " +
    "the bytes are checked against the type (magic bytes) at submit.",
  security: API_KEY_SECURITY,
  middleware: [jsonBodyLimit(LIMITS.smallBodyBytes)] as const,
  request: { body: { required: true, content: { "application/json": { schema: AttachmentRequestSchema } } } },
  responses: {
    200: jsonContent(AttachmentUploadSchema, "Where to PUT the file"),
    ...apiKeyErrors,
    ...bodyErrors,
  },
});
