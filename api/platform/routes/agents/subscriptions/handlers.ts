/** Subscription routes (spec §4.5): `createSubscriptionsRouter(deps)` is mounted under /api/v1. */
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import { every } from "hono/combine";
import type { Hash } from "viem";
import type { AgentEnv } from "../../../../http/auth/agent-bearer";
import { notFound } from "../../../../http/errors";
import type { AppEnv } from "../../../../http/types";
import { agentAuth } from "../../../agents-auth";
import { agentsConfigOf, type AgentsDeps } from "../../../agents-config";
import { chainReady, createPlatformRouter, platformContext } from "../../../context";
import { createOrder, presentOrder, presentPackage, refreshCreatedOrders } from "../../../services/subscriptions";
import { findPublicSubnetWithChain, type SubnetWithChain } from "../../subnets/queries";
import { AGENT_BEARER_SCHEME } from "../routes";
import { createOrderRoute, listOrdersRoute, listPackagesRoute } from "./routes";

export const subnetNotFound = () => notFound("Datanet not found");

/** A public datanet (published, with metadata, indexed) by id or tokenId; 404 otherwise. */
export async function requirePublicSubnet(deps: AgentsDeps, ref: string): Promise<SubnetWithChain & { tokenId: string }> {
  const subnet = await findPublicSubnetWithChain(deps.db, ref);
  if (!subnet || subnet.tokenId === null) throw subnetNotFound();
  return subnet as SubnetWithChain & { tokenId: string };
}

export function createSubscriptionsRouter(deps: AgentsDeps): OpenAPIHono<AppEnv> {
  const router = createPlatformRouter();
  const context = platformContext(deps);
  const config = agentsConfigOf(deps);
  const { db } = deps;
  const auth = every(agentAuth(deps), chainReady(deps)) as MiddlewareHandler<AgentEnv>;
  router.openAPIRegistry.registerComponent("securitySchemes", "agentBearer", AGENT_BEARER_SCHEME);

  router.openapi({ ...listPackagesRoute, middleware: chainReady(deps) }, async (c) => {
    const subnet = await requirePublicSubnet(deps, c.req.valid("param").subnetId);
    const { contracts } = context.chain().protocol;
    const accessFeeCORE = subnet.chainAccessFeeCORE ?? 0n;
    const subscriptionPackages = config.subscriptionPackages.map((pkg) => presentPackage(pkg, { accessFeeCORE, contracts }));
    return c.json({ data: { subscriptionPackages } }, 200);
  });

  router.openapi({ ...createOrderRoute, middleware: auth }, async (c) => {
    const agent = c.get("agent");
    const { subnetId, packageId } = c.req.valid("param");
    const { txHash } = c.req.valid("json");
    const subnet = await requirePublicSubnet(deps, subnetId);
    const pkg = config.subscriptionPackages.find((candidate) => candidate.id === packageId);
    if (!pkg) throw notFound("Package not found");
    const orderId = await createOrder(db, context, config, {
      agent,
      subnet: { id: subnet.id, tokenId: BigInt(subnet.tokenId) },
      pkg,
      txHash: txHash as Hash,
    });
    return c.json({ data: { orderId } }, 201);
  });

  router.openapi({ ...listOrdersRoute, middleware: auth }, async (c) => {
    const agent = c.get("agent");
    const subnet = await requirePublicSubnet(deps, c.req.valid("param").subnetId);
    const orders = await refreshCreatedOrders(db, context, config, { agent, subnetDraftId: subnet.id });
    return c.json({ data: { orders: orders.map(presentOrder) } }, 200);
  });

  return router;
}
