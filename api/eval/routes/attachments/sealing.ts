import { fileTypeFromBuffer } from "file-type";
import { badRequest, conflict, serviceUnavailable } from "../../../http/errors";
import type { EvalServices } from "../../app-services";
import { sha256Hex } from "../../../lib/crypto";
import { LIMITS } from "../../limits";
import type { AttachmentBinding } from "../../repositories/eval-requests";
import { findUploadForAccount } from "../../repositories/eval-requests";

// What file-type reports for bytes that are, for our purpose, the declared type.
const DETECTED_AS: Record<string, string> = {
  "application/illustrator": "application/pdf", // an Illustrator file is a PDF with extra markers
};

/** The type the bytes are, by their magic bytes (not by any name), or undefined. */
export async function sniffContentType(bytes: Uint8Array): Promise<string | undefined> {
  const detected = await fileTypeFromBuffer(bytes);
  if (!detected) return undefined;
  return DETECTED_AS[detected.mime] ?? detected.mime;
}

/**
 * A store call that throws means the store failed (unreachable, refusing our credentials): a
 * missing object is `null`, never an error. That is an honest 503 naming the store, not a 500, and
 * not "Database unavailable" (a socket error's code would otherwise read as one).
 */
async function fromStorage<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw Object.assign(serviceUnavailable("Attachment storage unavailable"), { cause: error });
  }
}

export interface AttachmentRefInput {
  key: string;
  filename: string;
  contentType: string;
}

export interface CheckedAttachment extends AttachmentBinding {
  key: string;
  contentType: string;
  /** Copies the checked bytes to the sealed object (run once the attachment is bound). */
  seal(): Promise<void>;
}

/**
 * Checks the attachment named at submit: it must be this account's upload,
 * not yet used, uploaded, at most 2 MB, and its magic bytes must be the
 * declared type. Every failure is a 4xx naming `attachments.0`.
 */
export async function checkAttachment(
  ctx: EvalServices,
  accountId: string,
  ref: AttachmentRefInput,
): Promise<CheckedAttachment> {
  const row = await findUploadForAccount(ctx.db, accountId, ref.key);
  if (!row) throw badRequest("attachments.0.key: unknown attachment key; request one with POST /agents/eval-requests/attachments");
  if (row.evaluationId) throw conflict("attachments.0: this attachment is already part of another evaluation");
  if (row.contentType !== ref.contentType) {
    throw badRequest(`attachments.0.contentType: the upload was requested as ${row.contentType}, not ${ref.contentType}`);
  }

  const upload = await fromStorage(() => ctx.storage.readUpload(ref.key, LIMITS.attachmentBytes));
  if (!upload) throw badRequest("attachments.0: the file was not uploaded (PUT it to the uploadUrl first)");
  if (upload.size > LIMITS.attachmentBytes) {
    throw badRequest(`attachments.0: the file is larger than 2 MB (${LIMITS.attachmentBytes} bytes)`);
  }
  if (upload.size === 0) throw badRequest("attachments.0: the uploaded file is empty");

  const detected = await sniffContentType(upload.bytes);
  if (detected !== ref.contentType) {
    throw badRequest(
      `attachments.0: the file content is ${detected ?? "of no recognised type"}, not the declared ${ref.contentType}`,
    );
  }
  const bytes = upload.bytes;
  return {
    seal: () => fromStorage(() => ctx.storage.seal(ref.key, bytes, ref.contentType)),
    rowId: row.id,
    key: ref.key,
    filename: ref.filename,
    contentType: ref.contentType,
    sizeBytes: upload.size,
    sha256: sha256Hex(upload.bytes),
  };
}
