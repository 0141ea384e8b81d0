/** Pod routes (spec §4.2): `createPodsRouter(deps)` is mounted under /api/v1. */
import type { Hash } from "viem";
import { notFound } from "../../../http/errors";
import {
  chainReady,
  cookieAuth,
  createPlatformRouter,
  currentUser,
  platformContext,
  requireWallet,
  type PlatformDeps,
} from "../../context";
import { presentPublicPod, presentUserPod } from "../../presenters/pod";
import { createPodDraft, mintPodDraft, republishPodDraft } from "../../services/pod-drafts";
import { assertPathMatch } from "../subnets/handlers";
import { IDP_COOKIE_SCHEME, pagination } from "../subnets/routes";
import {
  findPublicPod,
  findUserPodWithChain,
  listPodsVotedByWallet,
  listPublicPods,
  listUserPodsWithChain,
  publishedSubnetTokenId,
} from "./queries";
import {
  createPodRoute,
  getMyPodRoute,
  getPublicPodRoute,
  listMyPodsRoute,
  listMyVotedPodsRoute,
  listPublicPodsRoute,
  mintPodRoute,
  republishPodRoute,
} from "./routes";

export function createPodsRouter(deps: PlatformDeps) {
  const router = createPlatformRouter();
  const context = platformContext(deps);
  const { db } = deps;
  const auth = cookieAuth(deps);
  const indexed = chainReady(deps);
  router.openAPIRegistry.registerComponent("securitySchemes", "idpCookie", IDP_COOKIE_SCHEME);

  router.openapi({ ...listMyPodsRoute, middleware: [...auth, indexed] }, async (c) => {
    const rows = await listUserPodsWithChain(db, currentUser(c).id);
    return c.json({ data: { pods: rows.map(presentUserPod) } }, 200);
  });

  router.openapi({ ...createPodRoute, middleware: auth }, async (c) => {
    const { id } = await createPodDraft(db, { kind: "user", userId: currentUser(c).id }, c.req.valid("json"));
    return c.json({ data: { id } }, 201);
  });

  router.openapi({ ...listMyVotedPodsRoute, middleware: [...auth, indexed] }, async (c) => {
    const wallet = requireWallet(currentUser(c));
    const rows = await listPodsVotedByWallet(db, wallet, c.req.valid("param").epochId);
    return c.json({ data: { pods: rows.map(presentUserPod) } }, 200);
  });

  router.openapi({ ...getMyPodRoute, middleware: [...auth, indexed] }, async (c) => {
    const row = await findUserPodWithChain(db, currentUser(c).id, c.req.valid("param").id);
    if (!row) throw notFound("Pod not found");
    return c.json({ data: { pod: presentUserPod(row) } }, 200);
  });

  router.openapi({ ...mintPodRoute, middleware: auth }, async (c) => {
    const { id } = c.req.valid("param");
    const body = c.req.valid("json");
    const user = currentUser(c);
    assertPathMatch("podId", body.podId, id);
    const wallet = requireWallet(user);
    await mintPodDraft(db, context, {
      creator: { kind: "user", userId: user.id },
      wallet,
      draftId: id,
      txHash: body.txHash as Hash,
    });
    return c.json({ data: { success: true as const } }, 200);
  });

  router.openapi({ ...republishPodRoute, middleware: auth }, async (c) => {
    const { id } = c.req.valid("param");
    const body = c.req.valid("json");
    const user = currentUser(c);
    assertPathMatch("podId", body.podId, id);
    const wallet = requireWallet(user);
    await republishPodDraft(db, context, {
      creator: { kind: "user", userId: user.id },
      wallet,
      draftId: id,
      txHash: body.txHash as Hash,
    });
    return c.json({ data: { success: true as const } }, 200);
  });

  router.openapi({ ...listPublicPodsRoute, middleware: indexed }, async (c) => {
    const query = c.req.valid("query");
    const { page, limit, search } = query;
    const epoch = query["filters[currentEpoch]"];
    const subnetRef = query["filters[subnet]"]?.trim();
    const empty = { data: { pods: [], pagination: pagination(page, limit, 0) } };
    let subnetTokenId: bigint | undefined;
    if (subnetRef) {
      subnetTokenId = await publishedSubnetTokenId(db, subnetRef);
      // an unknown or unpublished datanet has no public pods
      if (subnetTokenId === undefined) return c.json(empty, 200);
    }
    const { rows, total } = await listPublicPods(db, {
      offset: (page - 1) * limit,
      limit,
      search,
      epoch: epoch === undefined ? undefined : BigInt(epoch),
      subnetTokenId,
    });
    return c.json({ data: { pods: rows.map(presentPublicPod), pagination: pagination(page, limit, total) } }, 200);
  });

  router.openapi({ ...getPublicPodRoute, middleware: indexed }, async (c) => {
    const row = await findPublicPod(db, c.req.valid("param").podId);
    if (!row) throw notFound("Pod not found");
    return c.json({ data: { pod: presentPublicPod(row) } }, 200);
  });

  return router;
}
