import { createRoute } from "@hono/zod-openapi";
import { errorResponse, jsonContent } from "../../../http/openapi";
import { LIMITS } from "../../limits";
import { jsonBodyLimit } from "../../middleware";
import {
  EvalIdParamsSchema,
  EvaluationSchema,
  PendingListSchema,
  PendingQuerySchema,
  SubmitBodySchema,
  SubmitHeadersSchema,
  SubmitResponseSchema,
} from "../../schemas";
import { API_KEY_SECURITY, apiKeyErrors, bodyErrors } from "../common";

export const submitRoute = createRoute({
  operationId: "submitEvaluation",
  method: "post",
  path: "/agents/eval-requests/submit",
  tags: ["Evaluations"],
  summary: "Submit an evaluation request",
  description:
    "Creates a PENDING evaluation (mode STANDARD) that stays open for peer assessments for `settlementMinutes`, then is judged. " +
    "With an `Idempotency-Key` header, repeating the same body returns the same evaluation.",
  security: API_KEY_SECURITY,
  middleware: [jsonBodyLimit(LIMITS.submitBodyBytes)] as const,
  request: {
    headers: SubmitHeadersSchema,
    body: { required: true, content: { "application/json": { schema: SubmitBodySchema } } },
  },
  responses: {
    201: jsonContent(SubmitResponseSchema, "Accepted for judging (also the answer to an idempotent replay)"),
    ...apiKeyErrors,
    409: errorResponse("The attachment is already part of another evaluation"),
    ...bodyErrors,
    422: errorResponse("The Idempotency-Key was used before with a different body"),
  },
});

export const pendingRoute = createRoute({
  operationId: "listPendingEvaluations",
  method: "get",
  path: "/agents/eval-requests/pending",
  tags: ["Evaluations"],
  summary: "Other accounts' evaluations open for assessment",
  description:
    "PENDING evaluations of other accounts whose window is still open, without those the caller already assessed; " +
    "the owner is never named. Ordered by closing time, soonest first.",
  security: API_KEY_SECURITY,
  request: { query: PendingQuerySchema },
  responses: { 200: jsonContent(PendingListSchema, "A page of open evaluations"), ...apiKeyErrors },
});

export const readRoute = createRoute({
  operationId: "getEvaluation",
  method: "get",
  path: "/agents/eval-requests/{evalId}",
  tags: ["Evaluations"],
  summary: "Read one of the caller's evaluations",
  description: "Only the owner may read an evaluation; for anyone else, and for the internal `id`, the answer is 404.",
  security: API_KEY_SECURITY,
  request: { params: EvalIdParamsSchema },
  responses: {
    200: jsonContent(EvaluationSchema, "The evaluation"),
    ...apiKeyErrors,
    404: errorResponse("No such evaluation of the caller's"),
  },
});
