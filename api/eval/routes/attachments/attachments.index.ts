/** attachments resource: wires attachments.routes.ts to attachments.handlers.ts. */
import { createRouter } from "../../../http/create-app";
import type { EvalAccountEnv } from "../../app-services";
import * as handlers from "./attachments.handlers";
import * as routes from "./attachments.routes";

export const attachmentsRouter = createRouter<EvalAccountEnv>()
  .openapi(routes.requestUploadRoute, handlers.requestUpload);
