/** Events resource: wires events.routes.ts to events.handlers.ts. */
import { createRouter } from "../../../http/create-app";
import type { PlatformEnv } from "../../app-services";
import * as handlers from "./events.handlers";
import * as routes from "./events.routes";

export const eventsRouter = createRouter<PlatformEnv>().openapi(routes.streamEventsRoute, handlers.streamEvents);
