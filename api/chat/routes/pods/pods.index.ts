/** Pods resource: wires pods.routes.ts to pods.handlers.ts. */
import { createRouter } from "../../../http/create-app";
import type { ChatEnv } from "../../app-services";
import * as handlers from "./pods.handlers";
import * as routes from "./pods.routes";

export const podsRouter = createRouter<ChatEnv>()
  .openapi(routes.mintRoute, handlers.mintPod)
  .openapi(routes.listPodsRoute, handlers.listPods);
