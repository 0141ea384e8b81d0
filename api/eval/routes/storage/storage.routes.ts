import { z } from "@hono/zod-openapi";
import { errorResponse, jsonContent } from "../../../http/openapi";
import { evalRoutes } from "../kinds";

/** The built-in store's signed URLs: the signature is the capability. */
const route = evalRoutes(["Attachments"]);
const signatureRefused = { 403: errorResponse("Invalid or expired signature") };

const KEY_EXAMPLE = "att_0123456789abcdef0123456789abcdef";

const KeyParams = z.object({
  key: z.string().openapi({ param: { name: "key", in: "path" }, example: KEY_EXAMPLE }),
});

/** The file's bytes as sent (PNG, JPEG, WebP or PDF); the example is the start of a PDF. */
const AttachmentBytes = z.string().openapi({
  format: "binary",
  example: "%PDF-1.7\n%âãÏÓ\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n…",
});

const SignedQuery = z.object({
  expires: z
    .string()
    .optional()
    .openapi({ param: { name: "expires", in: "query" }, description: "Unix seconds" }),
  signature: z
    .string()
    .optional()
    .openapi({ param: { name: "signature", in: "query" } }),
});

export const localUploadRoute = route.open("put", "/storage/uploads/{key}", "uploadAttachmentBytes", {
  summary: "Upload URL of the built-in store (signed; PUT only)",
  description:
    "The `uploadUrl` handed out by POST /agents/eval-requests/attachments when the local store is in use. " +
    "The signature is the capability (no API key). Bodies over 2 MB are cut at 2 MB + 1 byte and answered 413; " +
    "such a file is then rejected at submit.",
  request: {
    params: KeyParams,
    query: SignedQuery,
    body: { content: { "application/octet-stream": { schema: AttachmentBytes } } },
  },
  responses: {
    200: jsonContent(
      z.object({ key: z.string(), size: z.number().int() }).openapi({ example: { key: KEY_EXAMPLE, size: 48_213 } }),
      "Stored",
    ),
    ...signatureRefused,
    405: errorResponse("Any method but PUT"),
    413: errorResponse("Larger than 2 MB"),
  },
});

export const localDownloadRoute = route.open("get", "/storage/downloads/{key}", "downloadAttachmentBytes", {
  summary: "Download URL of the built-in store (signed; GET only)",
  request: {
    params: KeyParams,
    query: SignedQuery.extend({
      contentType: z
        .string()
        .optional()
        .openapi({ param: { name: "contentType", in: "query" } }),
      filename: z
        .string()
        .optional()
        .openapi({ param: { name: "filename", in: "query" } }),
    }),
  },
  responses: {
    200: { description: "The attachment bytes", content: { "application/octet-stream": { schema: AttachmentBytes } } },
    ...signatureRefused,
    404: errorResponse("No such attachment"),
  },
});
