/** Pod handlers (spec §4.2), each typed by its route in pods.routes.ts. */
import { type PlatformHandler, requireWallet, userDraftStep } from "../../app-services";
import { presentPublicPod, presentUserPod, type UserPodResponse } from "../../presenters/pod";
import { sendJsonBody } from "../../../http/json-body";
import { cachedBody } from "../../read-cache";
import * as pods from "../../repositories/pods";
import { createPodDraft, mintPodDraft, republishPodDraft } from "../../services/pod-drafts";
import { listPublicPodPage } from "../../services/pod-list";
import { podNotFound } from "../../services/refs";
import type * as routes from "./pods.routes";

export const listMyPods: PlatformHandler<typeof routes.listMyPodsRoute> = async (c) => {
  const ctx = c.get("services");
  const user = c.get("user");
  // computed once per read version (api/platform/read-cache.ts): a user with 1,000 pods costs ~1,000 rows
  const body = await cachedBody(ctx, `me/pods\n${user.id}`, async (): Promise<{ data: { pods: UserPodResponse[] } }> => {
    const rows = await pods.listUserPodsWithChain(ctx.db, user.id);
    return { data: { pods: rows.map(presentUserPod) } };
  });
  // the JSON of the typed object above, serialized once per version
  return sendJsonBody(c, body) as never;
};

export const createPod: PlatformHandler<typeof routes.createPodRoute> = async (c) => {
  const { id } = await createPodDraft(c.get("services").db, { kind: "user", userId: c.get("user").id }, c.req.valid("json"));
  return c.json({ data: { id } }, 201);
};

export const listMyVotedPods: PlatformHandler<typeof routes.listMyVotedPodsRoute> = async (c) => {
  const wallet = requireWallet(c.get("user"));
  const rows = await pods.listPodsVotedByWallet(c.get("services").db, wallet, c.req.valid("param").epochId);
  return c.json({ data: { pods: rows.map(presentUserPod) } }, 200);
};

export const getMyPod: PlatformHandler<typeof routes.getMyPodRoute> = async (c) => {
  const row = await pods.findUserPodWithChain(c.get("services").db, c.get("user").id, c.req.valid("param").id);
  if (!row) throw podNotFound();
  return c.json({ data: { pod: presentUserPod(row) } }, 200);
};

export const mintPod: PlatformHandler<typeof routes.mintPodRoute> = async (c) => {
  const ctx = c.get("services");
  const user = c.get("user");
  const step = userDraftStep(user, "podId", c.req.valid("param").id, c.req.valid("json"));
  await mintPodDraft(ctx.db, ctx.platform, step);
  return c.json({ data: { success: true as const } }, 200);
};

export const republishPod: PlatformHandler<typeof routes.republishPodRoute> = async (c) => {
  const ctx = c.get("services");
  const user = c.get("user");
  const step = userDraftStep(user, "podId", c.req.valid("param").id, c.req.valid("json"));
  await republishPodDraft(ctx.db, ctx.platform, step);
  return c.json({ data: { success: true as const } }, 200);
};

export const listPublicPods: PlatformHandler<typeof routes.listPublicPodsRoute> = async (c) => {
  const query = c.req.valid("query");
  const { rows, pagination, nextCursor } = await listPublicPodPage(c.get("services").db, {
    page: query.page,
    limit: query.limit,
    search: query.search,
    epoch: query["filters[currentEpoch]"],
    subnetRef: query["filters[subnet]"]?.trim(),
    cursor: query.cursor,
  });
  return c.json({ data: { pods: rows.map(presentPublicPod), pagination, nextCursor } }, 200);
};

export const getPublicPod: PlatformHandler<typeof routes.getPublicPodRoute> = async (c) => {
  const row = await pods.findPublicPod(c.get("services").db, c.req.valid("param").podId);
  if (!row) throw podNotFound();
  return c.json({ data: { pod: presentPublicPod(row) } }, 200);
};
