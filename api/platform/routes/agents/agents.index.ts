/** Agents resource: wires agents.routes.ts to agents.handlers.ts. */
import { createRouter } from "../../../http/create-app";
import type { PlatformEnv } from "../../app-services";
import * as handlers from "./agents.handlers";
import * as routes from "./agents.routes";

export const agentsRouter = createRouter<PlatformEnv>()
  .openapi(routes.registerAgentRoute, handlers.registerAgent)
  .openapi(routes.createAgentWalletNonceRoute, handlers.createAgentWalletNonce)
  .openapi(routes.bindAgentWalletRoute, handlers.bindAgentWallet)
  .openapi(routes.listAgentSubnetsRoute, handlers.listAgentSubnets)
  .openapi(routes.updateAgentRoute, handlers.updateAgent)
  .openapi(routes.createAgentSubnetRoute, handlers.createAgentSubnet)
  .openapi(routes.createAgentPodRoute, handlers.createAgentPod)
  .openapi(routes.archiveAgentPodRoute, handlers.archiveAgentPod)
  .openapi(routes.agentVoteRoute, handlers.agentVote);
