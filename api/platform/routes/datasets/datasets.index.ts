/** Datasets resource: wires datasets.routes.ts to datasets.handlers.ts. */
import { createRouter } from "../../../http/create-app";
import type { PlatformEnv } from "../../app-services";
import * as handlers from "./datasets.handlers";
import * as routes from "./datasets.routes";

export const datasetsRouter = createRouter<PlatformEnv>()
  .openapi(routes.getDatasetRoute, handlers.getDataset);
