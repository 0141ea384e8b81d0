/** Sizes are bytes of UTF-8: KB = 1024 bytes, MB = 1024 × 1024 bytes. */
export const KB = 1024;
export const MB = 1024 * KB;

export const EVAL_TYPES = ["answer", "plan", "trace", "artifact"] as const;
export type EvalType = (typeof EVAL_TYPES)[number];

export const DECISIONS = ["accept", "revise", "reject"] as const;
export type Decision = (typeof DECISIONS)[number];

export const ATTACHMENT_CONTENT_TYPES = ["image/png", "image/jpeg", "image/webp", "application/pdf"] as const;
export type AttachmentContentType = (typeof ATTACHMENT_CONTENT_TYPES)[number];

export const SETTLEMENT_MINUTES = [10, 15, 30, 60, 120, 360, 720, 1440] as const;
export const DEFAULT_SETTLEMENT_MINUTES = 15;

export const LIMITS = {
  payloadBytes: 50 * KB,
  criteriaItems: 10,
  criterionBytes: 2 * KB,
  contextBytes: 32 * KB,
  attachments: 1,
  attachmentBytes: 2 * MB,
  filenameChars: 255,
  nameChars: 200,
  critiqueBytes: 2 * KB,
  idempotencyKeyChars: 255,
  urlLifetimeSeconds: 5 * 60,
  pageSizeDefault: 20,
  pageSizeMax: 100,
  /** A submit body at its bounds, with every character JSON-escaped at worst (6 bytes), fits well under this. */
  submitBodyBytes: 1 * MB,
  /** Every other JSON body of the surface. */
  smallBodyBytes: 64 * KB,
} as const;

export const utf8Bytes = (text: string): number => Buffer.byteLength(text, "utf8");
/** Length in Unicode code points (what "characters" means in the spec's bounds). */
export const codePoints = (text: string): number => [...text].length;
