import { HttpError, notFound } from "../../../http/errors";
import { type EvalAccountHandler, evalBaseUrl } from "../../app-services";
import { pickCriteria } from "../../criteria";
import { sha256Hex } from "../../../lib/crypto";
import { newEvalId } from "../../ids";
import { LIMITS, type AttachmentContentType, type EvalType } from "../../limits";
import { FailedVerdictSchema, SettledVerdictSchema, type SubmitBody } from "../../schemas";
import { checkAttachment } from "../attachments/sealing";
import {
  findByIdempotencyKey,
  findOwnedEvaluation,
  insertEvaluation,
  listPending,
  humanJudgment,
  loadEvaluationDetails,
  peerJudgment,
  type EvaluationRow,
} from "../../repositories/eval-requests";
import type * as routes from "./eval-requests.routes";

const MINUTE_MS = 60_000;

/** JSON with object keys sorted, so equal bodies hash equally whatever their key order. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

/** Hash of the validated body (defaults applied): `settlementMinutes` omitted and 15 are the same request. */
export const submitRequestHash = (body: SubmitBody): string =>
  sha256Hex(canonicalJson({ ...body, context: body.context ?? null, attachments: body.attachments ?? [] }));

function submitResponse(row: EvaluationRow) {
  return {
    evalId: row.evalId,
    id: row.id,
    status: "PENDING" as const,
    mode: "STANDARD" as const,
    createdAt: row.createdAt.toISOString(),
    minSettleAt: row.minSettleAt.toISOString(),
  };
}

function replay(row: EvaluationRow, requestHash: string) {
  if (row.requestHash !== requestHash) {
    throw new HttpError(422, "Idempotency-Key was already used with a different request body");
  }
  return submitResponse(row);
}

export const submitEvaluation: EvalAccountHandler<typeof routes.submitRoute> = async (c) => {
  const ctx = c.get("services");
  const accountId = c.get("account");
  const body = c.req.valid("json");
  const idempotencyKey = c.req.valid("header")["idempotency-key"] ?? null;
  const requestHash = idempotencyKey ? submitRequestHash(body) : null;

  if (idempotencyKey) {
    const existing = await findByIdempotencyKey(ctx.db, accountId, idempotencyKey);
    if (existing) {
      c.header("Idempotent-Replayed", "true");
      return c.json(replay(existing, requestHash!), 201);
    }
  }

  const ref = body.attachments?.[0];
  const attachment = ref ? await checkAttachment(ctx, accountId, ref) : null;

  const createdAt = ctx.now();
  const context = body.context ?? null;
  const callerCriteria = body.criteria.length > 0;
  const row = await insertEvaluation(
    ctx.db,
    {
      evalId: newEvalId(),
      accountId,
      type: body.type,
      payload: body.payload,
      criteria: callerCriteria
        ? body.criteria
        : pickCriteria({ type: body.type, payload: body.payload, context, attachmentContentType: ref?.contentType }),
      criteriaSource: callerCriteria ? "caller" : "service",
      context,
      settlementMinutes: body.settlementMinutes,
      createdAt,
      minSettleAt: new Date(createdAt.getTime() + body.settlementMinutes * MINUTE_MS),
      idempotencyKey,
      requestHash,
    },
    attachment,
  );
  if (!row) {
    // A concurrent request with the same Idempotency-Key won the insert.
    const winner = await findByIdempotencyKey(ctx.db, accountId, idempotencyKey!);
    if (!winner) throw new HttpError(409, "Concurrent request with the same Idempotency-Key; retry");
    c.header("Idempotent-Replayed", "true");
    return c.json(replay(winner, requestHash!), 201);
  }
  ctx.logger.info({ evalId: row.evalId, accountId, minSettleAt: row.minSettleAt }, "evaluation submitted");
  return c.json(submitResponse(row), 201);
};

const iso = (date: Date) => date.toISOString();

/**
 * The stored verdict in its documented key order (jsonb keeps keys in its own
 * order); parsing through the schema rebuilds the objects in schema order.
 */
export function presentVerdict(stored: unknown) {
  if (stored === null || stored === undefined) return null;
  const settled = SettledVerdictSchema.safeParse(stored);
  if (settled.success) return settled.data;
  const failed = FailedVerdictSchema.safeParse(stored);
  if (failed.success) return failed.data;
  return stored as never;
}

export const getEvaluation: EvalAccountHandler<typeof routes.readRoute> = async (c) => {
  const ctx = c.get("services");
  const accountId = c.get("account");
  const { evalId } = c.req.valid("param");
  const row = await findOwnedEvaluation(ctx.db, evalId, accountId);
  if (!row) throw notFound("Evaluation not found");
  const { assessments, reviews, attachments } = await loadEvaluationDetails(ctx.db, row.id);
  const peerAssessments = assessments.map((a) => ({ ...peerJudgment(a), createdAt: iso(a.createdAt) }));
  const humanReviews = reviews.map((r) => ({ ...humanJudgment(r), createdAt: iso(r.createdAt) }));
  return c.json(
    {
      evalId: row.evalId,
      type: row.type as EvalType,
      status: row.status as "PENDING" | "SETTLED" | "FAILED",
      mode: row.mode as "STANDARD" | "LITE",
      score: row.status === "SETTLED" ? 100 : 0,
      createdAt: iso(row.createdAt),
      settlementMinutes: row.settlementMinutes,
      minSettleAt: iso(row.minSettleAt),
      settledAt: row.status === "PENDING" || !row.settledAt ? null : iso(row.settledAt),
      payload: row.payload,
      criteria: row.criteria,
      context: row.context,
      attachments: attachments.map((a) => ({
        filename: a.filename,
        contentType: a.contentType as AttachmentContentType,
      })),
      verdict: row.status === "PENDING" ? null : presentVerdict(row.verdict),
      peerAssessmentCount: peerAssessments.length,
      peerContributors: peerAssessments.map(({ agentName, modelName }) => ({ agentName, modelName })),
      peerAssessments,
      humanReviewCount: humanReviews.length,
      humanReviews,
    },
    200,
  );
};

export const listPendingEvaluations: EvalAccountHandler<typeof routes.pendingRoute> = async (c) => {
  const ctx = c.get("services");
  const accountId = c.get("account");
  const { page, pageSize } = c.req.valid("query");
  const now = ctx.now();
  const { total, rows, attachments } = await listPending(ctx.db, accountId, now, page, pageSize);
  const baseUrl = evalBaseUrl(c);
  const items = await Promise.all(
    rows.map(async (row) => ({
      id: row.id,
      evalId: row.evalId,
      type: row.type as EvalType,
      payload: row.payload,
      criteria: row.criteria,
      context: row.context,
      attachments: await Promise.all(
        attachments
          .filter((a) => a.evaluationId === row.id)
          .map(async (a) => ({
            filename: a.filename,
            contentType: a.contentType as AttachmentContentType,
            downloadUrl: await ctx.storage.downloadUrl(a.key, {
              baseUrl,
              now,
              expiresInSeconds: LIMITS.urlLifetimeSeconds,
              filename: a.filename,
              contentType: a.contentType,
            }),
          })),
      ),
      createdAt: iso(row.createdAt),
      minSettleAt: iso(row.minSettleAt),
      assessmentCount: Number(row.assessmentCount),
    })),
  );
  return c.json(
    { items, pagination: { page, pageSize, total, totalPages: Math.ceil(total / pageSize) } },
    200,
  );
};
