import { errorResponse, jsonBody, jsonContent } from "../../../http/openapi";
import { LIMITS } from "../../limits";
import {
  EvalIdParamsSchema,
  EvaluationSchema,
  PendingListSchema,
  PendingQuerySchema,
  SubmitBodySchema,
  SubmitHeadersSchema,
  SubmitResponseSchema,
} from "../../schemas";
import { evalRoutes } from "../kinds";

const route = evalRoutes(["Evaluations"], LIMITS.submitBodyBytes);

export const submitRoute = route.keyJson("post", "/agents/eval-requests/submit", "submitEvaluation", {
  summary: "Submit an evaluation request",
  description:
    "Creates a PENDING evaluation (mode STANDARD) that stays open for peer assessments for `settlementMinutes`, then is judged. " +
    "With an `Idempotency-Key` header, repeating the same body returns the same evaluation.",
  request: { headers: SubmitHeadersSchema, body: jsonBody(SubmitBodySchema) },
  responses: {
    201: jsonContent(SubmitResponseSchema, "Accepted for judging (also the answer to an idempotent replay)"),
    409: errorResponse("The attachment is already part of another evaluation"),
    422: errorResponse("The Idempotency-Key was used before with a different body"),
    503: errorResponse("The database or the attachment storage is unavailable; nothing was stored"),
  },
});

export const pendingRoute = route.key("get", "/agents/eval-requests/pending", "listPendingEvaluations", {
  summary: "Other accounts' evaluations open for assessment",
  description:
    "PENDING evaluations of other accounts whose window is still open, without those the caller already assessed; " +
    "the owner is never named. Ordered by closing time, soonest first.",
  request: { query: PendingQuerySchema },
  responses: { 200: jsonContent(PendingListSchema, "A page of open evaluations") },
});

export const readRoute = route.key("get", "/agents/eval-requests/{evalId}", "getEvaluation", {
  summary: "Read one of the caller's evaluations",
  description: "Only the owner may read an evaluation; for anyone else, and for the internal `id`, the answer is 404.",
  request: { params: EvalIdParamsSchema },
  responses: {
    200: jsonContent(EvaluationSchema, "The evaluation"),
    404: errorResponse("No such evaluation of the caller's"),
  },
});
