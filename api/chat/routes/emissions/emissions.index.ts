/** Emissions resource: wires emissions.routes.ts to emissions.handlers.ts. */
import { createRouter } from "../../../http/create-app";
import type { ChatEnv } from "../../app-services";
import * as handlers from "./emissions.handlers";
import * as routes from "./emissions.routes";

export const emissionsRouter = createRouter<ChatEnv>()
  .openapi(routes.checkRoute, handlers.checkEmissions)
  .openapi(routes.claimRoute, handlers.claimEmissions);
