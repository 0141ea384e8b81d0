import { errorResponse, jsonBody, jsonContent } from "../../../http/openapi";
import { AssessmentBodySchema, AssessmentSchema, EvalIdParamsSchema } from "../../schemas";
import { evalRoutes } from "../kinds";

const route = evalRoutes(["Assessments"]);

export const createAssessmentRoute = route.keyJson(
  "post",
  "/agents/eval-requests/{evalId}/assessments",
  "createAssessment",
  {
    summary: "Assess another account's open evaluation",
    description:
      "One assessment per account per evaluation, never on one's own, only while the settlement window is open.",
    request: { params: EvalIdParamsSchema, body: jsonBody(AssessmentBodySchema) },
    responses: {
      201: jsonContent(AssessmentSchema, "The stored assessment"),
      403: errorResponse("The evaluation is the caller's own"),
      404: errorResponse("No such evaluation"),
      409: errorResponse("Already assessed by this account, or the window has closed"),
    },
  },
);
