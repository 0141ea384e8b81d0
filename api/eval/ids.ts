import { randomBytes } from "node:crypto";

/** Public id of an evaluation (what `GET /agents/eval-requests/{evalId}` takes). */
export const newEvalId = (): string => `eval_${randomBytes(12).toString("hex")}`;

/** Attachment key returned by `POST /agents/eval-requests/attachments`. */
export const newAttachmentKey = (): string => `att_${randomBytes(16).toString("hex")}`;
export const ATTACHMENT_KEY_PATTERN = /^att_[0-9a-f]{32}$/;

/** An API key: 256 random bits, shown once; only its sha-256 is stored. */
export const newApiKey = (): string => `evk_${randomBytes(32).toString("base64url")}`;
