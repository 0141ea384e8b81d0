/** Auth resource: wires auth.routes.ts to auth.handlers.ts. */
import { createRouter } from "../../../http/create-app";
import type { ChatEnv } from "../../app-services";
import * as handlers from "./auth.handlers";
import * as routes from "./auth.routes";

export const authRouter = createRouter<ChatEnv>()
  .openapi(routes.nonceRoute, handlers.issueNonce)
  .openapi(routes.verifyRoute, handlers.verify);
