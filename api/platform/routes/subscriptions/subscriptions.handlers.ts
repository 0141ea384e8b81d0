/** Subscription handlers (spec §4.5). */
import type { Hash } from "viem";
import { notFound } from "../../../http/errors";
import type { PlatformHandler } from "../../app-services";
import { requirePublicSubnet } from "../../services/refs";
import { createOrder as create, presentOrder, presentPackage, refreshCreatedOrders } from "../../services/subscriptions";
import type * as routes from "./subscriptions.routes";

export const listPackages: PlatformHandler<typeof routes.listPackagesRoute> = async (c) => {
  const { db, platform, agents } = c.get("services");
  const subnet = await requirePublicSubnet(db, c.req.valid("param").subnetId);
  const { contracts } = platform.chain().protocol;
  const accessFeeCORE = subnet.chainAccessFeeCORE ?? 0n;
  const subscriptionPackages = agents.subscriptionPackages.map((pkg) => presentPackage(pkg, { accessFeeCORE, contracts }));
  return c.json({ data: { subscriptionPackages } }, 200);
};

export const createOrder: PlatformHandler<typeof routes.createOrderRoute> = async (c) => {
  const agent = c.get("agent");
  const { db, platform, agents } = c.get("services");
  const { subnetId, packageId } = c.req.valid("param");
  const { txHash } = c.req.valid("json");
  const subnet = await requirePublicSubnet(db, subnetId);
  const pkg = agents.subscriptionPackages.find((candidate) => candidate.id === packageId);
  if (!pkg) throw notFound("Package not found");
  const orderId = await create(db, platform, agents, {
    agent,
    subnet: { id: subnet.id, tokenId: BigInt(subnet.tokenId) },
    pkg,
    txHash: txHash as Hash,
  });
  return c.json({ data: { orderId } }, 201);
};

export const listOrders: PlatformHandler<typeof routes.listOrdersRoute> = async (c) => {
  const agent = c.get("agent");
  const { db, platform, agents } = c.get("services");
  const subnet = await requirePublicSubnet(db, c.req.valid("param").subnetId);
  const orders = await refreshCreatedOrders(db, platform, agents, { agent, subnetDraftId: subnet.id });
  return c.json({ data: { orders: orders.map(presentOrder) } }, 200);
};
