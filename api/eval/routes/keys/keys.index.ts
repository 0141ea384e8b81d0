/** keys resource: wires keys.routes.ts to keys.handlers.ts. */
import { createRouter } from "../../../http/create-app";
import type { EvalEnv } from "../../app-services";
import * as handlers from "./keys.handlers";
import * as routes from "./keys.routes";

export const keysRouter = createRouter<EvalEnv>()
  .openapi(routes.issueKeyRoute, handlers.issueKey);
