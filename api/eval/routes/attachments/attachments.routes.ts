import { jsonBody, jsonContent } from "../../../http/openapi";
import { AttachmentRequestSchema, AttachmentUploadSchema } from "../../schemas";
import { evalRoutes } from "../kinds";

export const requestUploadRoute = evalRoutes(["Attachments"]).keyJson(
  "post",
  "/agents/eval-requests/attachments",
  "requestUpload",
  {
    summary: "Get a URL to upload one attachment",
    description:
      "Returns a `key` and an `uploadUrl` valid 5 minutes that accepts only HTTP PUT of the file bytes. " +
      "Then submit with `attachments: [{key, filename, contentType}]`. PNG, JPEG, WebP or PDF, up to 2 MB; " +
      "the bytes are checked against the type (magic bytes) at submit.",
    request: { body: jsonBody(AttachmentRequestSchema) },
    responses: { 200: jsonContent(AttachmentUploadSchema, "Where to PUT the file") },
  },
);
