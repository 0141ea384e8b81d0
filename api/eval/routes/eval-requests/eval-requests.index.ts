/** eval-requests resource: wires eval-requests.routes.ts to eval-requests.handlers.ts. */
import { createRouter } from "../../../http/create-app";
import type { EvalAccountEnv } from "../../app-services";
import * as handlers from "./eval-requests.handlers";
import * as routes from "./eval-requests.routes";

// Registration order matters: `/pending` before `/{evalId}`.
export const evalRequestsRouter = createRouter<EvalAccountEnv>()
  .openapi(routes.submitRoute, handlers.submitEvaluation)
  .openapi(routes.pendingRoute, handlers.listPendingEvaluations)
  .openapi(routes.readRoute, handlers.getEvaluation);
