/** Webhooks resource: wires webhooks.routes.ts to webhooks.handlers.ts. */
import { createRouter } from "../../../http/create-app";
import type { PlatformEnv } from "../../app-services";
import * as handlers from "./webhooks.handlers";
import * as routes from "./webhooks.routes";

export const webhooksRouter = createRouter<PlatformEnv>()
  .openapi(routes.createWebhookRoute, handlers.createWebhook)
  .openapi(routes.listWebhooksRoute, handlers.listWebhooks)
  .openapi(routes.getWebhookRoute, handlers.getWebhook)
  .openapi(routes.deleteWebhookRoute, handlers.deleteWebhook)
  .openapi(routes.resumeWebhookRoute, handlers.resumeWebhook);
