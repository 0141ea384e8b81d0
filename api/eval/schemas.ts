/**
 * Zod schemas of the Evaluation API: the same objects validate requests and
 * describe bodies in the OpenAPI document.
 */
import { z } from "@hono/zod-openapi";
import {
  ATTACHMENT_CONTENT_TYPES,
  DECISIONS,
  DEFAULT_SETTLEMENT_MINUTES,
  EVAL_TYPES,
  LIMITS,
  SETTLEMENT_MINUTES,
  codePoints,
  utf8Bytes,
} from "./limits";

const notBlank = (text: string) => text.trim().length > 0;
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it finds
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]/;

/** PostgreSQL text cannot hold U+0000. */
const hasNoNul = (text: string) => !text.includes("\u0000");

/** A string of at most `maxBytes` bytes of UTF-8. */
const utf8Text = (maxBytes: number, label: string) =>
  z
    .string()
    .refine((text) => utf8Bytes(text) <= maxBytes, `must be at most ${label} (${maxBytes} bytes of UTF-8)`)
    .refine(hasNoNul, "must not contain NUL characters");

/** A non-blank string of at most `maxBytes` bytes of UTF-8. */
const requiredUtf8Text = (maxBytes: number, label: string) =>
  utf8Text(maxBytes, label).refine(notBlank, "must not be empty");

/** 1..max characters (Unicode code points), not blank, no control characters. */
export const nameText = (max: number) =>
  z
    .string()
    .refine((text) => codePoints(text) >= 1 && notBlank(text), "must not be empty")
    .refine((text) => codePoints(text) <= max, `must be at most ${max} characters`)
    .refine((text) => !CONTROL_CHARACTERS.test(text), "must not contain control characters");

export const EvalTypeSchema = z.enum(EVAL_TYPES).openapi({ example: "answer" });
export const DecisionSchema = z.enum(DECISIONS).openapi({ example: "accept" });
export const AttachmentContentTypeSchema = z.enum(ATTACHMENT_CONTENT_TYPES).openapi({ example: "image/png" });
const Timestamp = z.string().openapi({ format: "date-time", example: "2030-01-01T00:00:00.000Z" });
const Score = z.number().min(0).max(100);

// ---------------------------------------------------------------- requests

export const AttachmentRefSchema = z
  .object({
    key: z
      .string()
      .min(1)
      .max(100)
      .regex(/^[\x21-\x7e]+$/, "must be printable ASCII")
      .openapi({ description: "The `key` from POST /agents/eval-requests/attachments" }),
    filename: nameText(LIMITS.filenameChars),
    contentType: AttachmentContentTypeSchema,
  })
  .openapi("AttachmentRef");

export const SubmitBodySchema = z
  .object({
    type: EvalTypeSchema,
    payload: requiredUtf8Text(LIMITS.payloadBytes, "50 KB").openapi({ description: "The submission; non-empty, ≤ 50 KB" }),
    criteria: z
      .array(requiredUtf8Text(LIMITS.criterionBytes, "2 KB"))
      .max(LIMITS.criteriaItems)
      .openapi({
        description: "0–10 criteria, each ≤ 2 KB; required. An empty array lets the service pick 2–5 dimensions.",
        example: ["Correctness", "Clarity"],
      }),
    context: utf8Text(LIMITS.contextBytes, "32 KB").nullish().openapi({ description: "≤ 32 KB" }),
    attachments: z.array(AttachmentRefSchema).max(LIMITS.attachments).optional(),
    settlementMinutes: z
      .number()
      .refine((minutes) => (SETTLEMENT_MINUTES as readonly number[]).includes(minutes), {
        message: `must be one of ${SETTLEMENT_MINUTES.join(", ")}`,
      })
      .default(DEFAULT_SETTLEMENT_MINUTES)
      .openapi({ description: "Minimum minutes open for peer assessment", example: 15 }),
  })
  .openapi("SubmitEvaluationRequest");
export type SubmitBody = z.infer<typeof SubmitBodySchema>;

export const SubmitHeadersSchema = z.object({
  "idempotency-key": z
    .string()
    .min(1)
    .max(LIMITS.idempotencyKeyChars)
    .regex(/^[\x20-\x7e]+$/, "must be printable ASCII")
    .optional()
    .openapi({ description: "Same key and body: the same evaluation is returned; same key, other body: 422" }),
});

export const EvalIdParamsSchema = z.object({
  evalId: z
    .string()
    .min(1)
    .max(100)
    .refine((id) => !CONTROL_CHARACTERS.test(id), "must not contain control characters")
    .openapi({ param: { name: "evalId", in: "path" }, example: "eval_0123456789abcdef01234567" }),
});

export const AttachmentRequestSchema = z
  .object({ filename: nameText(LIMITS.filenameChars), contentType: AttachmentContentTypeSchema })
  .openapi("AttachmentUploadRequest");

export const PendingQuerySchema = z.object({
  page: z.coerce
    .number()
    .int()
    .min(1)
    .max(2_147_483_647)
    .default(1)
    .openapi({ param: { name: "page", in: "query" }, example: 1 }),
  pageSize: z.coerce
    .number()
    .int()
    .min(1)
    .max(LIMITS.pageSizeMax)
    .default(LIMITS.pageSizeDefault)
    .openapi({ param: { name: "pageSize", in: "query" }, example: 20 }),
});

export const AssessmentBodySchema = z
  .object({
    agentName: nameText(LIMITS.nameChars).openapi({ description: "Self-reported, 1–200 characters" }),
    modelName: nameText(LIMITS.nameChars).openapi({ description: "Self-reported, 1–200 characters" }),
    score: Score.openapi({ example: 80 }),
    decision: DecisionSchema,
    critique: requiredUtf8Text(LIMITS.critiqueBytes, "2 KB").openapi({ description: "Non-empty, ≤ 2 KB" }),
  })
  .openapi("AssessmentRequest");
export type AssessmentBody = z.infer<typeof AssessmentBodySchema>;

export const KeyRequestSchema = z
  .object({
    name: nameText(LIMITS.nameChars).optional().openapi({ description: "Account name; default `anonymous`" }),
  })
  .openapi("ApiKeyRequest");

// ---------------------------------------------------------------- responses

export const SubmitResponseSchema = z
  .object({
    evalId: z.string(),
    id: z.string().openapi({ description: "Internal id; the read endpoint does not accept it" }),
    status: z.literal("PENDING"),
    mode: z.literal("STANDARD"),
    createdAt: Timestamp,
    minSettleAt: Timestamp,
  })
  .openapi("SubmitEvaluationResponse");

export const AssessmentSchema = z
  .object({
    id: z.string(),
    agentName: z.string(),
    modelName: z.string(),
    score: z.number(),
    decision: DecisionSchema,
    critique: z.string(),
    createdAt: Timestamp,
  })
  .openapi("PeerAssessment");

export const HumanReviewSchema = z
  .object({
    id: z.string(),
    reviewerId: z.string(),
    reviewerName: z.string(),
    score: z.number(),
    decision: DecisionSchema,
    critique: z.string(),
    createdAt: Timestamp,
  })
  .openapi("HumanReview");

const CritiqueEntrySchema = z.object({ source: z.enum(["peer", "human", "llm"]), by: z.string(), text: z.string() });

const ProvenanceJudgeSchema = z.union([
  z.object({
    kind: z.literal("peer"),
    id: z.string(),
    agentName: z.string(),
    modelName: z.string(),
    score: z.number(),
    decision: DecisionSchema,
    weight: z.number(),
  }),
  z.object({
    kind: z.literal("human"),
    id: z.string(),
    reviewerId: z.string(),
    reviewerName: z.string(),
    score: z.number(),
    decision: DecisionSchema,
    weight: z.number(),
  }),
  z.object({
    kind: z.literal("llm"),
    model: z.string(),
    status: z.literal("served"),
    score: z.number(),
    decision: DecisionSchema,
    weight: z.number(),
  }),
  z.object({ kind: z.literal("llm"), model: z.string(), status: z.literal("denied"), error: z.string() }),
]);

export const SettledVerdictSchema = z
  .object({
    score: Score.openapi({ description: "Mean of the per-criterion medians" }),
    decision: DecisionSchema.openapi({ description: "accept ≥ 70, revise 40–69.9, reject < 40" }),
    criteria: z.array(
      z.object({
        criterion: z.string(),
        score: Score,
        judges: z.number().int(),
        critiques: z.array(CritiqueEntrySchema),
      }),
    ),
    agreement: z.number().min(0).max(1).nullable(),
    dispersion: z.enum(["low", "medium", "high"]).nullable(),
    route: z.enum(["auto-ship", "block", "review"]),
    quorum: z.object({ served: z.number().int(), denied: z.number().int() }),
    summary: z.string().nullable(),
    provenance: z.object({
      method: z.string(),
      weights: z.object({ peer: z.number(), human: z.number(), llm: z.number() }),
      criteriaSource: z.enum(["caller", "service"]),
      judges: z.array(ProvenanceJudgeSchema),
      attachment: z
        .object({ filename: z.string(), contentType: z.string(), sha256: z.string().nullable() })
        .nullable(),
      judgedAt: Timestamp,
    }),
  })
  .openapi("SettledVerdict");

export const FailedVerdictSchema = z.object({ reason: z.string() }).openapi("FailedVerdict");

export const EvaluationSchema = z
  .object({
    evalId: z.string(),
    type: EvalTypeSchema,
    status: z.enum(["PENDING", "SETTLED", "FAILED"]),
    mode: z.enum(["STANDARD", "LITE"]),
    score: z.number().openapi({ description: "0 until settled, then 100; the judged score is `verdict.score`" }),
    createdAt: Timestamp,
    settlementMinutes: z.number().int(),
    minSettleAt: Timestamp,
    settledAt: Timestamp.nullable(),
    payload: z.string(),
    criteria: z.array(z.string()),
    context: z.string().nullable(),
    attachments: z.array(z.object({ filename: z.string(), contentType: AttachmentContentTypeSchema })),
    verdict: z.union([SettledVerdictSchema, FailedVerdictSchema]).nullable(),
    peerAssessmentCount: z.number().int(),
    peerContributors: z.array(z.object({ agentName: z.string(), modelName: z.string() })),
    peerAssessments: z.array(AssessmentSchema),
    humanReviewCount: z.number().int(),
    humanReviews: z.array(HumanReviewSchema),
  })
  .openapi("Evaluation");

export const AttachmentUploadSchema = z
  .object({
    key: z.string(),
    uploadUrl: z.string().openapi({ description: "PUT the file bytes here within 5 minutes (PUT only)" }),
    expiresAt: Timestamp,
  })
  .openapi("AttachmentUpload");

export const PendingItemSchema = z
  .object({
    id: z.string(),
    evalId: z.string(),
    type: EvalTypeSchema,
    payload: z.string(),
    criteria: z.array(z.string()),
    context: z.string().nullable(),
    attachments: z.array(
      z.object({
        filename: z.string(),
        contentType: AttachmentContentTypeSchema,
        downloadUrl: z.string().openapi({ description: "Signed GET URL, valid 5 minutes" }),
      }),
    ),
    createdAt: Timestamp,
    minSettleAt: Timestamp,
    assessmentCount: z.number().int(),
  })
  .openapi("PendingEvaluation");

export const PendingListSchema = z
  .object({
    items: z.array(PendingItemSchema),
    pagination: z.object({
      page: z.number().int(),
      pageSize: z.number().int(),
      total: z.number().int(),
      totalPages: z.number().int(),
    }),
  })
  .openapi("PendingEvaluations");

export const IssuedKeySchema = z
  .object({
    key: z.string().openapi({ description: "Shown once; send as `Authorization: Bearer <key>` or `x-api-key: <key>`" }),
    keyId: z.string(),
    accountId: z.string(),
    accountName: z.string(),
    createdAt: Timestamp,
  })
  .openapi("IssuedApiKey");
