import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { readOrCreateSecretFile } from "../../lib/crypto";
import { ATTACHMENT_KEY_PATTERN } from "../ids";
import type { AttachmentStorage, DownloadUrlOptions, SignedUrlOptions, UploadedObject } from "./index";

export const SIGNING_SECRET_FILE = ".url-signing-secret";
export const LOCAL_UPLOAD_PATH = "/storage/uploads";
export const LOCAL_DOWNLOAD_PATH = "/storage/downloads";

export type UrlCheck = "ok" | "expired" | "invalid";

export interface UploadWriteResult {
  /** Bytes kept on disk (at most the cap). */
  size: number;
  /** The body was longer than the cap: only the first `cap` bytes were kept. */
  truncated: boolean;
}

/**
 * Attachment bytes as files under `dir`; URLs signed with HMAC-SHA256 over
 * the operation, key, expiry (and, for downloads, the served type and name).
 */
export class LocalAttachmentStorage implements AttachmentStorage {
  readonly kind = "local" as const;
  readonly dir: string;
  private readonly configuredSecret: string | undefined;
  private secretBytes: Buffer | undefined;

  constructor(options: { dir: string; secret?: string }) {
    this.dir = path.resolve(options.dir);
    this.configuredSecret = options.secret;
  }

  /** The configured secret, else the one persisted in the store's directory (created on first use). */
  private secret(): Buffer {
    if (this.secretBytes) return this.secretBytes;
    if (this.configuredSecret) return (this.secretBytes = Buffer.from(this.configuredSecret, "utf8"));
    const { value } = readOrCreateSecretFile(path.join(this.dir, SIGNING_SECRET_FILE), () =>
      randomBytes(32).toString("base64url"),
    );
    return (this.secretBytes = Buffer.from(value, "utf8"));
  }

  private signature(parts: string[]): string {
    return createHmac("sha256", this.secret()).update(parts.join("\n")).digest("base64url");
  }

  private objectPath(objectKey: string): string {
    return path.join(this.dir, objectKey);
  }

  async uploadUrl(key: string, { baseUrl, now, expiresInSeconds }: SignedUrlOptions): Promise<string> {
    const expires = String(Math.floor(now.getTime() / 1000) + expiresInSeconds);
    const query = new URLSearchParams({ expires, signature: this.signature(["PUT", key, expires]) });
    return `${baseUrl}${LOCAL_UPLOAD_PATH}/${key}?${query}`;
  }

  async downloadUrl(key: string, options: DownloadUrlOptions): Promise<string> {
    const { baseUrl, now, expiresInSeconds, filename, contentType } = options;
    const expires = String(Math.floor(now.getTime() / 1000) + expiresInSeconds);
    const query = new URLSearchParams({ expires, contentType, filename });
    query.set("signature", this.signature(["GET", key, expires, contentType, filename]));
    return `${baseUrl}${LOCAL_DOWNLOAD_PATH}/${key}?${query}`;
  }

  /** Checks a signed URL's query for `method` on `key` at time `now`. */
  verify(method: "PUT" | "GET", key: string, query: Record<string, string | undefined>, now: Date): UrlCheck {
    const { expires, signature } = query;
    if (!ATTACHMENT_KEY_PATTERN.test(key) || !expires || !signature || !/^\d{1,12}$/.test(expires)) return "invalid";
    const parts = method === "PUT" ? ["PUT", key, expires] : ["GET", key, expires, query.contentType ?? "", query.filename ?? ""];
    const expected = Buffer.from(this.signature(parts));
    const given = Buffer.from(signature);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) return "invalid";
    return Number(expires) * 1000 < now.getTime() ? "expired" : "ok";
  }

  /**
   * Streams a request body to `uploads/<key>`, keeping at most `cap` bytes.
   * The file appears whole (written aside, then renamed) or not at all.
   */
  async writeUpload(key: string, body: ReadableStream<Uint8Array> | null, cap: number): Promise<UploadWriteResult> {
    if (!ATTACHMENT_KEY_PATTERN.test(key)) throw new Error("invalid attachment key");
    const target = this.objectPath(`uploads/${key}`);
    const temporaryDir = this.objectPath("tmp");
    await fs.promises.mkdir(path.dirname(target), { recursive: true });
    await fs.promises.mkdir(temporaryDir, { recursive: true });
    const temporary = path.join(temporaryDir, `${key}.${randomBytes(6).toString("hex")}`);

    const file = await fs.promises.open(temporary, "w", 0o600);
    let size = 0;
    let truncated = false;
    try {
      if (body) {
        const reader = body.getReader();
        try {
          for (;;) {
            const { done, value } = await reader.read();
            if (done) break;
            const room = cap - size;
            const chunk = value.byteLength > room ? value.subarray(0, room) : value;
            if (chunk.byteLength > 0) await file.write(chunk);
            size += chunk.byteLength;
            if (value.byteLength > room) {
              truncated = true;
              break;
            }
          }
        } finally {
          if (truncated) await reader.cancel().catch(() => undefined);
          reader.releaseLock();
        }
      }
      await file.close();
      await fs.promises.rename(temporary, target);
      return { size, truncated };
    } catch (error) {
      await file.close().catch(() => undefined);
      await fs.promises.rm(temporary, { force: true });
      throw error;
    }
  }

  async readUpload(key: string, maxBytes: number): Promise<UploadedObject | null> {
    return this.readObject(`uploads/${key}`, maxBytes);
  }

  private async readObject(objectKey: string, maxBytes: number): Promise<UploadedObject | null> {
    let stat: fs.Stats;
    try {
      stat = await fs.promises.stat(this.objectPath(objectKey));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
      throw error;
    }
    if (!stat.isFile()) return null;
    if (stat.size > maxBytes) return { size: stat.size, bytes: new Uint8Array() };
    const bytes = await fs.promises.readFile(this.objectPath(objectKey));
    return { size: bytes.byteLength, bytes: new Uint8Array(bytes) };
  }

  async seal(key: string, bytes: Uint8Array): Promise<void> {
    const target = this.objectPath(`sealed/${key}`);
    await fs.promises.mkdir(path.dirname(target), { recursive: true });
    const temporary = `${target}.${randomBytes(6).toString("hex")}.tmp`;
    await fs.promises.writeFile(temporary, bytes, { mode: 0o600 });
    await fs.promises.rename(temporary, target);
  }

  async readSealed(key: string): Promise<Uint8Array | null> {
    const object = await this.readObject(`sealed/${key}`, Number.MAX_SAFE_INTEGER);
    return object?.bytes ?? null;
  }
}
