import {
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
  type S3ClientConfig,
} from "@aws-sdk/client-s3";
import { getSignedUrl } from "@aws-sdk/s3-request-presigner";
import type { S3StorageConfig } from "../config";
import type { AttachmentStorage, DownloadUrlOptions, SignedUrlOptions, UploadedObject } from "./index";

function isNotFound(error: unknown): boolean {
  const e = error as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e?.name === "NotFound" || e?.name === "NoSuchKey" || e?.$metadata?.httpStatusCode === 404;
}

/** RFC 6266 header value, ASCII fallback plus the UTF-8 name. */
export function contentDisposition(filename: string): string {
  const ascii = filename.replace(/[^\x20-\x7e]|["\\]/g, "_");
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(filename)}`;
}

/**
 * An S3-compatible bucket. Upload URLs are presigned PutObject requests (a
 * signature covers the method, so they accept only PUT); download URLs are
 * presigned GetObject requests that also fix the served type and file name.
 * Presigned PUTs cannot cap the size: the 2 MB bound is checked at submit.
 */
export class S3AttachmentStorage implements AttachmentStorage {
  readonly kind = "s3" as const;
  private readonly client: S3Client;

  constructor(
    private readonly config: S3StorageConfig,
    client?: S3Client,
  ) {
    const options: S3ClientConfig = {
      region: config.region,
      forcePathStyle: config.forcePathStyle,
      ...(config.endpoint ? { endpoint: config.endpoint } : {}),
      ...(config.credentials ? { credentials: config.credentials } : {}),
    };
    this.client = client ?? new S3Client(options);
  }

  private objectKey(objectKey: string): string {
    return `${this.config.prefix}${objectKey}`;
  }

  async uploadUrl(key: string, { now, expiresInSeconds }: SignedUrlOptions): Promise<string> {
    const command = new PutObjectCommand({ Bucket: this.config.bucket, Key: this.objectKey(`uploads/${key}`) });
    return getSignedUrl(this.client, command, { expiresIn: expiresInSeconds, signingDate: now });
  }

  async downloadUrl(key: string, { now, expiresInSeconds, filename, contentType }: DownloadUrlOptions): Promise<string> {
    const command = new GetObjectCommand({
      Bucket: this.config.bucket,
      Key: this.objectKey(`sealed/${key}`),
      ResponseContentType: contentType,
      ResponseContentDisposition: contentDisposition(filename),
    });
    return getSignedUrl(this.client, command, { expiresIn: expiresInSeconds, signingDate: now });
  }

  async readUpload(key: string, maxBytes: number): Promise<UploadedObject | null> {
    const Key = this.objectKey(`uploads/${key}`);
    let size: number;
    try {
      const head = await this.client.send(new HeadObjectCommand({ Bucket: this.config.bucket, Key }));
      size = head.ContentLength ?? 0;
    } catch (error) {
      if (isNotFound(error)) return null;
      throw error;
    }
    if (size > maxBytes) return { size, bytes: new Uint8Array() };
    const bytes = await this.readObject(Key, maxBytes);
    if (!bytes) return null;
    return { size: bytes.byteLength, bytes };
  }

  private async readObject(Key: string, maxBytes?: number): Promise<Uint8Array | null> {
    try {
      const object = await this.client.send(
        new GetObjectCommand({
          Bucket: this.config.bucket,
          Key,
          // Overwritten since the HEAD? Never read more than one byte past the bound.
          ...(maxBytes !== undefined ? { Range: `bytes=0-${maxBytes}` } : {}),
        }),
      );
      if (!object.Body) return new Uint8Array();
      return await object.Body.transformToByteArray();
    } catch (error) {
      if (isNotFound(error)) return null;
      // An empty object answers a ranged GET with 416.
      if ((error as { $metadata?: { httpStatusCode?: number } })?.$metadata?.httpStatusCode === 416) {
        return new Uint8Array();
      }
      throw error;
    }
  }

  async seal(key: string, bytes: Uint8Array, contentType: string): Promise<void> {
    await this.client.send(
      new PutObjectCommand({
        Bucket: this.config.bucket,
        Key: this.objectKey(`sealed/${key}`),
        Body: bytes,
        ContentType: contentType,
      }),
    );
  }

  async readSealed(key: string): Promise<Uint8Array | null> {
    return this.readObject(this.objectKey(`sealed/${key}`));
  }
}
