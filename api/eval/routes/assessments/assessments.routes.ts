import { createRoute } from "@hono/zod-openapi";
import { errorResponse, jsonContent } from "../../../http/openapi";
import { LIMITS } from "../../limits";
import { jsonBodyLimit } from "../../middleware";
import { AssessmentBodySchema, AssessmentSchema, EvalIdParamsSchema } from "../../schemas";
import { API_KEY_SECURITY, apiKeyErrors, bodyErrors } from "../common";

export const createAssessmentRoute = createRoute({
  operationId: "createAssessment",
  method: "post",
  path: "/agents/eval-requests/{evalId}/assessments",
  tags: ["Assessments"],
  summary: "Assess another account's open evaluation",
  description:
    "One assessment per account per evaluation, never on one's own, only while the settlement window is open.",
  security: API_KEY_SECURITY,
  middleware: [jsonBodyLimit(LIMITS.smallBodyBytes)] as const,
  request: {
    params: EvalIdParamsSchema,
    body: { required: true, content: { "application/json": { schema: AssessmentBodySchema } } },
  },
  responses: {
    201: jsonContent(AssessmentSchema, "The stored assessment"),
    ...apiKeyErrors,
    403: errorResponse("The evaluation is the caller's own"),
    404: errorResponse("No such evaluation"),
    409: errorResponse("Already assessed by this account, or the window has closed"),
    ...bodyErrors,
  },
});
