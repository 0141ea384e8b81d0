/** Wallets resource: wires wallets.routes.ts to wallets.handlers.ts. */
import { createRouter } from "../../../http/create-app";
import type { PlatformEnv } from "../../app-services";
import * as handlers from "./wallets.handlers";
import * as routes from "./wallets.routes";

export const walletsRouter = createRouter<PlatformEnv>().openapi(
  routes.getWalletClaimableRoute,
  handlers.getWalletClaimable,
);
