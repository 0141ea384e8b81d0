/** Chat resource: wires chat.routes.ts to chat.handlers.ts. */
import { createRouter } from "../../../http/create-app";
import type { ChatEnv } from "../../app-services";
import * as handlers from "./chat.handlers";
import * as routes from "./chat.routes";

export const chatRouter = createRouter<ChatEnv>()
  .openapi(routes.chatRoute, handlers.chat)
  .openapi(routes.historyRoute, handlers.history);
