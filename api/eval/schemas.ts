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

// Values the examples share, so that the reference (/docs) reads as one evaluation's story.
const EXAMPLE = {
  evalId: "eval_5f2c9a1e7b3d4c6a8e0f1b2c",
  id: "2c7d9e4f-1a3b-4c5d-8e6f-7a8b9c0d1e2f",
  attachmentKey: "att_9a8b7c6d5e4f30211203f4e5d6c7b8a9",
  payload: "The capital of Australia is Canberra, chosen in 1908 as a compromise between Sydney and Melbourne.",
  criteria: ["Correctness", "Clarity"],
  context: "Question: What is the capital of Australia, and why?",
  createdAt: "2030-01-01T00:00:00.000Z",
  minSettleAt: "2030-01-01T00:15:00.000Z",
  settledAt: "2030-01-01T00:15:07.000Z",
  uploadUrl:
    "http://127.0.0.1:3002/api/v1/storage/uploads/att_9a8b7c6d5e4f30211203f4e5d6c7b8a9" +
    "?expires=1893456300&signature=3q2-7wUvXk1y0ZbN4cHd8fJg6mLr2sTa5pQe9oVi1Wc",
  downloadUrl:
    "http://127.0.0.1:3002/api/v1/storage/downloads/att_9a8b7c6d5e4f30211203f4e5d6c7b8a9" +
    "?expires=1893456300&contentType=application%2Fpdf&filename=sources.pdf&signature=Xk1y0ZbN4cHd8fJg6mLr2sTa5pQe9oVi1Wc3q2-7wUv",
} as const;

const ASSESSMENT_EXAMPLE = {
  id: "4e5f6a7b-8c9d-4e0f-9a1b-2c3d4e5f6a7b",
  agentName: "Reviewer-7",
  modelName: "gpt-4.1",
  score: 85,
  decision: "accept" as const,
  critique: "Correct and concise; the 1908 date and the compromise are both right.",
  createdAt: "2030-01-01T00:06:00.000Z",
};
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
  .openapi("AttachmentRef", {
    example: { key: EXAMPLE.attachmentKey, filename: "sources.pdf", contentType: "application/pdf" },
  });

export const SubmitBodySchema = z
  .object({
    type: EvalTypeSchema,
    payload: requiredUtf8Text(LIMITS.payloadBytes, "50 KB").openapi({
      description: "The submission; non-empty, ≤ 50 KB",
    }),
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
  .openapi("SubmitEvaluationRequest", {
    example: {
      type: "answer",
      payload: EXAMPLE.payload,
      criteria: [...EXAMPLE.criteria],
      context: EXAMPLE.context,
      attachments: [{ key: EXAMPLE.attachmentKey, filename: "sources.pdf", contentType: "application/pdf" }],
      settlementMinutes: 15,
    },
  });
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
  .openapi("AttachmentUploadRequest", { example: { filename: "sources.pdf", contentType: "application/pdf" } });

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
  .openapi("AssessmentRequest", {
    example: {
      agentName: ASSESSMENT_EXAMPLE.agentName,
      modelName: ASSESSMENT_EXAMPLE.modelName,
      score: ASSESSMENT_EXAMPLE.score,
      decision: ASSESSMENT_EXAMPLE.decision,
      critique: ASSESSMENT_EXAMPLE.critique,
    },
  });
export type AssessmentBody = z.infer<typeof AssessmentBodySchema>;

export const KeyRequestSchema = z
  .object({
    name: nameText(LIMITS.nameChars).optional().openapi({ description: "Account name; default `anonymous`" }),
  })
  .openapi("ApiKeyRequest", { example: { name: "research-team" } });

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
  .openapi("SubmitEvaluationResponse", {
    example: {
      evalId: EXAMPLE.evalId,
      id: EXAMPLE.id,
      status: "PENDING",
      mode: "STANDARD",
      createdAt: EXAMPLE.createdAt,
      minSettleAt: EXAMPLE.minSettleAt,
    },
  });

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
  .openapi("PeerAssessment", { example: ASSESSMENT_EXAMPLE });

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
      attachment: z.object({ filename: z.string(), contentType: z.string(), sha256: z.string().nullable() }).nullable(),
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
  .openapi("Evaluation", {
    example: {
      evalId: EXAMPLE.evalId,
      type: "answer",
      status: "SETTLED",
      mode: "STANDARD",
      score: 100,
      createdAt: EXAMPLE.createdAt,
      settlementMinutes: 15,
      minSettleAt: EXAMPLE.minSettleAt,
      settledAt: EXAMPLE.settledAt,
      payload: EXAMPLE.payload,
      criteria: [...EXAMPLE.criteria],
      context: EXAMPLE.context,
      attachments: [{ filename: "sources.pdf", contentType: "application/pdf" }],
      verdict: {
        score: 85,
        decision: "accept",
        criteria: [
          {
            criterion: "Correctness",
            score: 90,
            judges: 1,
            critiques: [
              { source: "peer", by: "Reviewer-7 (gpt-4.1)", text: "The 1908 date and the compromise are both right." },
            ],
          },
          {
            criterion: "Clarity",
            score: 80,
            judges: 1,
            critiques: [
              {
                source: "peer",
                by: "Reviewer-7 (gpt-4.1)",
                text: "Concise; one sentence could name the 1913 founding.",
              },
            ],
          },
        ],
        agreement: null,
        dispersion: null,
        route: "auto-ship",
        quorum: { served: 1, denied: 0 },
        summary: null,
        provenance: {
          method: "weighted-median-v1",
          weights: { peer: 1, human: 2, llm: 1 },
          criteriaSource: "caller",
          judges: [
            {
              kind: "peer",
              id: ASSESSMENT_EXAMPLE.id,
              agentName: ASSESSMENT_EXAMPLE.agentName,
              modelName: ASSESSMENT_EXAMPLE.modelName,
              score: ASSESSMENT_EXAMPLE.score,
              decision: ASSESSMENT_EXAMPLE.decision,
              weight: 1,
            },
          ],
          attachment: {
            filename: "sources.pdf",
            contentType: "application/pdf",
            sha256: "9f2b5c8e1d4a7f0b3e6c9d2a5f8b1e4c7a0d3f6b9e2c5a8d1f4b7e0a3c6d9f2b",
          },
          judgedAt: EXAMPLE.settledAt,
        },
      },
      peerAssessmentCount: 1,
      peerContributors: [{ agentName: ASSESSMENT_EXAMPLE.agentName, modelName: ASSESSMENT_EXAMPLE.modelName }],
      peerAssessments: [ASSESSMENT_EXAMPLE],
      humanReviewCount: 0,
      humanReviews: [],
    },
  });

export const AttachmentUploadSchema = z
  .object({
    key: z.string(),
    uploadUrl: z.string().openapi({ description: "PUT the file bytes here within 5 minutes (PUT only)" }),
    expiresAt: Timestamp,
  })
  .openapi("AttachmentUpload", {
    example: { key: EXAMPLE.attachmentKey, uploadUrl: EXAMPLE.uploadUrl, expiresAt: "2030-01-01T00:05:00.000Z" },
  });

const PENDING_EXAMPLE = {
  id: EXAMPLE.id,
  evalId: EXAMPLE.evalId,
  type: "answer",
  payload: EXAMPLE.payload,
  criteria: [...EXAMPLE.criteria],
  context: EXAMPLE.context,
  attachments: [{ filename: "sources.pdf", contentType: "application/pdf", downloadUrl: EXAMPLE.downloadUrl }],
  createdAt: EXAMPLE.createdAt,
  minSettleAt: EXAMPLE.minSettleAt,
  assessmentCount: 0,
};

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
  .openapi("PendingEvaluation", { example: PENDING_EXAMPLE });

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
  .openapi("PendingEvaluations", {
    example: {
      items: [PENDING_EXAMPLE],
      pagination: { page: 1, pageSize: 20, total: 1, totalPages: 1 },
    },
  });

export const IssuedKeySchema = z
  .object({
    key: z.string().openapi({ description: "Shown once; send as `Authorization: Bearer <key>` or `x-api-key: <key>`" }),
    keyId: z.string(),
    accountId: z.string(),
    accountName: z.string(),
    createdAt: Timestamp,
  })
  .openapi("IssuedApiKey", {
    example: {
      key: "evk_ExampleOnly_NotARealEvalApiKey_012345678901",
      keyId: "0d1e2f3a-4b5c-4d6e-8f7a-9b0c1d2e3f4a",
      accountId: "a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d",
      accountName: "research-team",
      createdAt: EXAMPLE.createdAt,
    },
  });
