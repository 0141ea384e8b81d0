/** Dataset download (spec §4.5): `createDatasetsRouter(deps)` is mounted under /api/v1. */
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import { every } from "hono/combine";
import type { AgentEnv } from "../../../../http/auth/agent-bearer";
import { HttpError } from "../../../../http/errors";
import type { AppEnv } from "../../../../http/types";
import { agentAuth } from "../../../agents-auth";
import { agentsConfigOf, type AgentsDeps } from "../../../agents-config";
import { chainReady, createPlatformRouter, platformContext } from "../../../context";
import { buildDataset } from "../../../services/datasets";
import { hasValidSubscription } from "../../../services/subscriptions";
import { AGENT_BEARER_SCHEME } from "../routes";
import { requirePublicSubnet } from "../subscriptions/handlers";
import { getDatasetRoute } from "./routes";

export const subscriptionRequired = () => new HttpError(403, "Subscription required");

export function createDatasetsRouter(deps: AgentsDeps): OpenAPIHono<AppEnv> {
  const router = createPlatformRouter();
  const context = platformContext(deps);
  const config = agentsConfigOf(deps);
  const middleware = every(agentAuth(deps), chainReady(deps)) as MiddlewareHandler<AgentEnv>;
  router.openAPIRegistry.registerComponent("securitySchemes", "agentBearer", AGENT_BEARER_SCHEME);

  router.openapi({ ...getDatasetRoute, middleware }, async (c) => {
    const agent = c.get("agent");
    const subnet = await requirePublicSubnet(deps, c.req.valid("param").subnetId);
    if (!(await hasValidSubscription(deps.db, context, config, { agent, subnetDraftId: subnet.id }))) {
      throw subscriptionRequired();
    }
    const data = await buildDataset(deps.db, { subnetTokenId: BigInt(subnet.tokenId), limit: config.datasetMaxItems });
    return c.json({ data }, 200);
  });
  return router;
}
