/** Comments resource: wires comments.routes.ts to comments.handlers.ts. */
import { createRouter } from "../../../http/create-app";
import type { PlatformEnv } from "../../app-services";
import * as handlers from "./comments.handlers";
import * as routes from "./comments.routes";

export const commentsRouter = createRouter<PlatformEnv>()
  .openapi(routes.listCommentsRoute, handlers.listComments)
  .openapi(routes.createCommentRoute, handlers.createComment);
