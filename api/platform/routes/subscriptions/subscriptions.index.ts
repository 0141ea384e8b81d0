/** Subscriptions resource: wires subscriptions.routes.ts to subscriptions.handlers.ts. */
import { createRouter } from "../../../http/create-app";
import type { PlatformEnv } from "../../app-services";
import * as handlers from "./subscriptions.handlers";
import * as routes from "./subscriptions.routes";

export const subscriptionsRouter = createRouter<PlatformEnv>()
  .openapi(routes.listPackagesRoute, handlers.listPackages)
  .openapi(routes.createOrderRoute, handlers.createOrder)
  .openapi(routes.listOrdersRoute, handlers.listOrders);
