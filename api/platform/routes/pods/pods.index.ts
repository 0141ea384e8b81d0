/** Pod resource: wires pods.routes.ts to pods.handlers.ts. */
import { createRouter } from "../../../http/create-app";
import type { PlatformEnv } from "../../app-services";
import * as handlers from "./pods.handlers";
import * as routes from "./pods.routes";

export const podsRouter = createRouter<PlatformEnv>()
  .openapi(routes.listMyPodsRoute, handlers.listMyPods)
  .openapi(routes.createPodRoute, handlers.createPod)
  .openapi(routes.listMyVotedPodsRoute, handlers.listMyVotedPods)
  .openapi(routes.getMyPodRoute, handlers.getMyPod)
  .openapi(routes.mintPodRoute, handlers.mintPod)
  .openapi(routes.republishPodRoute, handlers.republishPod)
  .openapi(routes.listPublicPodsRoute, handlers.listPublicPods)
  .openapi(routes.getPublicPodRoute, handlers.getPublicPod);
