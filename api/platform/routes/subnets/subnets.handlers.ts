/** Subnet handlers (spec §4.3), each typed by its route in subnets.routes.ts. */
import { type PlatformHandler, userDraftStep } from "../../app-services";
import { presentSubnet } from "../../presenters/subnet";
import * as subnets from "../../repositories/subnets";
import { pagination } from "../../schemas/common";
import { createSubnetDraft, publishSubnetDraft, recordSubnetParameter, SUBNET_SETTERS, type SubnetSetter } from "../../services/subnet-drafts";
import { subnetNotFound } from "../../services/refs";
import type * as routes from "./subnets.routes";

export const listMySubnets: PlatformHandler<typeof routes.listMySubnetsRoute> = async (c) => {
  const rows = await subnets.listUserSubnetsWithChain(c.get("services").db, c.get("user").id);
  return c.json({ data: { subnets: rows.map(presentSubnet) } }, 200);
};

export const createSubnet: PlatformHandler<typeof routes.createSubnetRoute> = async (c) => {
  const { id } = await createSubnetDraft(c.get("services").db, { kind: "user", userId: c.get("user").id }, c.req.valid("json"));
  return c.json({ data: { id } }, 201);
};

export const getMySubnet: PlatformHandler<typeof routes.getMySubnetRoute> = async (c) => {
  const row = await subnets.findUserSubnetWithChain(c.get("services").db, c.get("user").id, c.req.valid("param").id);
  if (!row) throw subnetNotFound();
  return c.json({ data: { subnet: presentSubnet(row) } }, 200);
};

export const publishSubnet: PlatformHandler<typeof routes.publishSubnetRoute> = async (c) => {
  const ctx = c.get("services");
  const user = c.get("user");
  const step = userDraftStep(user, "subnetId", c.req.valid("param").id, c.req.valid("json"));
  await publishSubnetDraft(ctx.db, ctx.platform, step);
  return c.json({ data: { success: true as const } }, 200);
};

/** The handler of one fee or emission setter (its route: `setterRoute(setter, ...)`). */
export function setParameter(setter: SubnetSetter): PlatformHandler<ReturnType<typeof routes.setterRoute>> {
  const { field } = SUBNET_SETTERS[setter];
  return async (c) => {
    const ctx = c.get("services");
    const user = c.get("user");
    const body = c.req.valid("json") as { subnetId: string; txHash: string } & Record<string, number>;
    const step = userDraftStep(user, "subnetId", c.req.valid("param").id, body);
    await recordSubnetParameter(ctx.db, ctx.platform, { ...step, setter, amount: body[field]! });
    return c.json({ data: { success: true as const } }, 200);
  };
}

export const listPublicSubnets: PlatformHandler<typeof routes.listPublicSubnetsRoute> = async (c) => {
  const { page, limit, search } = c.req.valid("query");
  const { rows, total } = await subnets.listPublicSubnetsWithChain(c.get("services").db, { offset: (page - 1) * limit, limit, search });
  return c.json({ data: { subnets: rows.map(presentSubnet), pagination: pagination(page, limit, total) } }, 200);
};

export const getPublicSubnet: PlatformHandler<typeof routes.getPublicSubnetRoute> = async (c) => {
  const row = await subnets.findPublicSubnetWithChain(c.get("services").db, c.req.valid("param").id);
  if (!row) throw subnetNotFound();
  return c.json({ data: { subnet: presentSubnet(row) } }, 200);
};
