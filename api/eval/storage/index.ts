/**
 * Where attachment bytes live. Two stores behind one interface:
 * - `local` (default): files under EVAL_STORAGE_DIR, with HMAC-signed upload
 *   and download URLs served by this app (api/eval/routes/storage);
 * - `s3`: any S3-compatible bucket, with presigned URLs (AWS SDK).
 *
 * Object layout: `uploads/<key>` receives the client's PUT; at submit the
 * checked bytes are copied to `sealed/<key>`, which is what peers download and
 * the judge reads, so re-using the upload URL afterwards changes nothing.
 */
import type { EvalConfig } from "../config";
import { LocalAttachmentStorage } from "./local";
import { S3AttachmentStorage } from "./s3";

export interface SignedUrlOptions {
  /** `{eval_url}` of this service (local store only). */
  baseUrl: string;
  now: Date;
  expiresInSeconds: number;
}

export interface DownloadUrlOptions extends SignedUrlOptions {
  filename: string;
  contentType: string;
}

export interface UploadedObject {
  /** Size of the stored object in bytes. */
  size: number;
  /** Its bytes, or empty when `size` exceeds the limit the caller gave. */
  bytes: Uint8Array;
}

export interface AttachmentStorage {
  readonly kind: "local" | "s3";
  /** A URL that accepts only `PUT` of the object's bytes until it expires. */
  uploadUrl(key: string, options: SignedUrlOptions): Promise<string>;
  /** A URL that serves the sealed object with GET until it expires. */
  downloadUrl(key: string, options: DownloadUrlOptions): Promise<string>;
  /** The uploaded object, or null when nothing was uploaded; bytes only when `size <= maxBytes`. */
  readUpload(key: string, maxBytes: number): Promise<UploadedObject | null>;
  /** Stores the checked bytes as the sealed object. */
  seal(key: string, bytes: Uint8Array, contentType: string): Promise<void>;
  readSealed(key: string): Promise<Uint8Array | null>;
}

export const uploadObjectKey = (key: string) => `uploads/${key}`;
export const sealedObjectKey = (key: string) => `sealed/${key}`;

export function createAttachmentStorage(config: EvalConfig): AttachmentStorage {
  if (config.storage.kind === "s3") return new S3AttachmentStorage(config.storage);
  return new LocalAttachmentStorage({ dir: config.storage.dir, secret: config.urlSigningSecret });
}

export { LocalAttachmentStorage } from "./local";
export { S3AttachmentStorage } from "./s3";
