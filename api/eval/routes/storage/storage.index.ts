/** Storage resource (the built-in store's signed URLs): wires storage.routes.ts to storage.handlers.ts. */
import { createRouter } from "../../../http/create-app";
import type { EvalEnv } from "../../app-services";
import * as handlers from "./storage.handlers";
import * as routes from "./storage.routes";

export const storageRouter = createRouter<EvalEnv>()
  .openapi(routes.localUploadRoute, handlers.uploadAttachmentBytes)
  .openapi(routes.localDownloadRoute, handlers.downloadAttachmentBytes);

// any other method on a signed URL: 405 with Allow
storageRouter.all(routes.localUploadRoute.path.replace("{key}", ":key"), handlers.onlyPut);
storageRouter.all(routes.localDownloadRoute.path.replace("{key}", ":key"), handlers.onlyGet);
