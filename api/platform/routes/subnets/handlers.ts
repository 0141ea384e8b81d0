/** Datanet routes (spec §4.3): `createSubnetsRouter(deps)` is mounted under /api/v1. */
import type { Hash } from "viem";
import { badRequest, notFound } from "../../../http/errors";
import {
  chainReady,
  cookieAuth,
  currentUser,
  createPlatformRouter,
  platformContext,
  requireWallet,
  type PlatformDeps,
} from "../../context";
import { presentSubnet } from "../../presenters/subnet";
import {
  createSubnetDraft,
  publishSubnetDraft,
  recordSubnetParameter,
  SUBNET_SETTERS,
  type SubnetSetter,
} from "../../services/subnet-drafts";
import { findPublicSubnetWithChain, findUserSubnetWithChain, listPublicSubnetsWithChain, listUserSubnetsWithChain } from "./queries";
import {
  createSubnetRoute,
  getMySubnetRoute,
  getPublicSubnetRoute,
  IDP_COOKIE_SCHEME,
  listMySubnetsRoute,
  listPublicSubnetsRoute,
  pagination,
  publishSubnetRoute,
  SETTER_PATHS,
  setterRoute,
} from "./routes";

export function assertPathMatch(field: string, bodyValue: string, pathValue: string): void {
  if (bodyValue !== pathValue) throw badRequest(`${field} must match the path`);
}

export function createSubnetsRouter(deps: PlatformDeps) {
  const router = createPlatformRouter();
  const context = platformContext(deps);
  const { db } = deps;
  const auth = cookieAuth(deps);
  const indexed = chainReady(deps);
  router.openAPIRegistry.registerComponent("securitySchemes", "idpCookie", IDP_COOKIE_SCHEME);

  router.openapi({ ...listMySubnetsRoute, middleware: [...auth, indexed] }, async (c) => {
    const rows = await listUserSubnetsWithChain(db, currentUser(c).id);
    return c.json({ data: { subnets: rows.map(presentSubnet) } }, 200);
  });

  router.openapi({ ...createSubnetRoute, middleware: auth }, async (c) => {
    const { id } = await createSubnetDraft(db, { kind: "user", userId: currentUser(c).id }, c.req.valid("json"));
    return c.json({ data: { id } }, 201);
  });

  router.openapi({ ...getMySubnetRoute, middleware: [...auth, indexed] }, async (c) => {
    const row = await findUserSubnetWithChain(db, currentUser(c).id, c.req.valid("param").id);
    if (!row) throw notFound("Datanet not found");
    return c.json({ data: { subnet: presentSubnet(row) } }, 200);
  });

  router.openapi({ ...publishSubnetRoute, middleware: auth }, async (c) => {
    const { id } = c.req.valid("param");
    const body = c.req.valid("json");
    const user = currentUser(c);
    assertPathMatch("subnetId", body.subnetId, id);
    const wallet = requireWallet(user);
    await publishSubnetDraft(db, context, {
      creator: { kind: "user", userId: user.id },
      wallet,
      draftId: id,
      txHash: body.txHash as Hash,
    });
    return c.json({ data: { success: true as const } }, 200);
  });

  for (const setter of Object.keys(SETTER_PATHS) as SubnetSetter[]) {
    const { path, aliases } = SETTER_PATHS[setter];
    const { field } = SUBNET_SETTERS[setter];
    for (const [routePath, hide] of [[path, false], ...aliases.map((alias) => [alias, true] as const)] as const) {
      router.openapi({ ...setterRoute(setter, routePath, hide), middleware: auth }, async (c) => {
        const { id } = c.req.valid("param");
        const body = c.req.valid("json") as { subnetId: string; txHash: string } & Record<string, number>;
        const user = currentUser(c);
        assertPathMatch("subnetId", body.subnetId, id);
        const wallet = requireWallet(user);
        await recordSubnetParameter(db, context, {
          creator: { kind: "user", userId: user.id },
          wallet,
          draftId: id,
          setter,
          amount: body[field]!,
          txHash: body.txHash as Hash,
        });
        return c.json({ data: { success: true as const } }, 200);
      });
    }
  }

  router.openapi({ ...listPublicSubnetsRoute, middleware: indexed }, async (c) => {
    const { page, limit, search } = c.req.valid("query");
    const { rows, total } = await listPublicSubnetsWithChain(db, { offset: (page - 1) * limit, limit, search });
    return c.json({ data: { subnets: rows.map(presentSubnet), pagination: pagination(page, limit, total) } }, 200);
  });

  router.openapi({ ...getPublicSubnetRoute, middleware: indexed }, async (c) => {
    const row = await findPublicSubnetWithChain(db, c.req.valid("param").id);
    if (!row) throw notFound("Datanet not found");
    return c.json({ data: { subnet: presentSubnet(row) } }, 200);
  });

  return router;
}
