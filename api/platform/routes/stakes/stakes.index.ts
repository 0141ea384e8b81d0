/** Stakes resource: wires stakes.routes.ts to stakes.handlers.ts. */
import { createRouter } from "../../../http/create-app";
import type { PlatformEnv } from "../../app-services";
import * as handlers from "./stakes.handlers";
import * as routes from "./stakes.routes";

export const stakesRouter = createRouter<PlatformEnv>()
  .openapi(routes.boostRoute, handlers.boost);
