/** The signed upload and download URLs of the built-in store; the signature is the capability. */
import type { Context } from "hono";
import { HttpError, notFound } from "../../../http/errors";
import type { EvalEnv, EvalHandler } from "../../app-services";
import { LIMITS } from "../../limits";
import type { LocalAttachmentStorage, UrlCheck } from "../../storage/local";
import { contentDisposition } from "../../storage/s3";
import type * as routes from "./storage.routes";

const forbidden = (check: UrlCheck) => new HttpError(403, check === "expired" ? "URL expired" : "Invalid signature");

const methodNotAllowed = (allow: string) =>
  new HttpError(405, `Method not allowed; this URL accepts only ${allow}`, { Allow: allow });

/** These routes are mounted only when the app's store is the local one. */
const localStorage = (c: Context<EvalEnv>) => c.get("services").storage as LocalAttachmentStorage;

export const uploadAttachmentBytes: EvalHandler<typeof routes.localUploadRoute> = async (c) => {
  const storage = localStorage(c);
  const { key } = c.req.valid("param");
  const check = storage.verify("PUT", key, c.req.valid("query"), c.get("services").now());
  if (check !== "ok") throw forbidden(check);
  // Kept: at most 2 MB + 1 byte, enough for submit to tell the file is too large.
  const written = await storage.writeUpload(key, c.req.raw.body, LIMITS.attachmentBytes + 1);
  if (written.truncated || written.size > LIMITS.attachmentBytes) {
    throw new HttpError(413, "Attachment larger than 2 MB; it will be rejected at submit");
  }
  return c.json({ key, size: written.size }, 200);
};

export const downloadAttachmentBytes: EvalHandler<typeof routes.localDownloadRoute> = async (c) => {
  const storage = localStorage(c);
  const { key } = c.req.valid("param");
  const query = c.req.valid("query");
  const check = storage.verify("GET", key, query, c.get("services").now());
  if (check !== "ok") throw forbidden(check);
  const bytes = await storage.readSealed(key);
  if (!bytes) throw notFound("Attachment not found");
  return new Response(bytes, {
    status: 200,
    headers: {
      "content-type": query.contentType ?? "application/octet-stream",
      "content-length": String(bytes.byteLength),
      "content-disposition": contentDisposition(query.filename ?? key),
      "x-content-type-options": "nosniff",
      "cache-control": "private, max-age=300",
    },
  });
};

export const onlyPut = () => {
  throw methodNotAllowed("PUT");
};

export const onlyGet = () => {
  throw methodNotAllowed("GET");
};
