/** Feedback resource: wires feedback.routes.ts to feedback.handlers.ts. */
import { createRouter } from "../../../http/create-app";
import type { PlatformEnv } from "../../app-services";
import * as handlers from "./feedback.handlers";
import * as routes from "./feedback.routes";

export const feedbackRouter = createRouter<PlatformEnv>()
  .openapi(routes.createFeedbackRoute, handlers.createFeedback);
