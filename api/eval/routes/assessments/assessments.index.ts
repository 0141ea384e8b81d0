/** assessments resource: wires assessments.routes.ts to assessments.handlers.ts. */
import { createRouter } from "../../../http/create-app";
import type { EvalAccountEnv } from "../../app-services";
import * as handlers from "./assessments.handlers";
import * as routes from "./assessments.routes";

export const assessmentsRouter = createRouter<EvalAccountEnv>()
  .openapi(routes.createAssessmentRoute, handlers.createAssessment);
