/** Locks resource: wires locks.routes.ts to locks.handlers.ts. */
import { createRouter } from "../../../http/create-app";
import type { PlatformEnv } from "../../app-services";
import * as handlers from "./locks.handlers";
import * as routes from "./locks.routes";

export const locksRouter = createRouter<PlatformEnv>()
  .openapi(routes.listLocksRoute, handlers.listLocks);
