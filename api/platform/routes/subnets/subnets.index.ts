/** Subnet resource: wires subnets.routes.ts to subnets.handlers.ts. */
import { createRouter } from "../../../http/create-app";
import type { PlatformEnv } from "../../app-services";
import type { SubnetSetter } from "../../services/subnet-drafts";
import * as handlers from "./subnets.handlers";
import * as routes from "./subnets.routes";

export const subnetsRouter = createRouter<PlatformEnv>()
  .openapi(routes.listMySubnetsRoute, handlers.listMySubnets)
  .openapi(routes.createSubnetRoute, handlers.createSubnet)
  .openapi(routes.getMySubnetRoute, handlers.getMySubnet)
  .openapi(routes.publishSubnetRoute, handlers.publishSubnet);

// each setter at its path, and at its hidden alias paths
for (const setter of Object.keys(routes.SETTER_PATHS) as SubnetSetter[]) {
  const { path, aliases } = routes.SETTER_PATHS[setter];
  subnetsRouter.openapi(routes.setterRoute(setter, path), handlers.setParameter(setter));
  aliases.forEach((alias, index) => {
    subnetsRouter.openapi(routes.setterRoute(setter, alias, index + 1), handlers.setParameter(setter));
  });
}

subnetsRouter
  .openapi(routes.listPublicSubnetsRoute, handlers.listPublicSubnets)
  .openapi(routes.getPublicSubnetRoute, handlers.getPublicSubnet);
