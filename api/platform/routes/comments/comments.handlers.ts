/** Comment handlers: on publicly listed pods (minted, indexed, not banned, not archived). */
import type { PlatformHandler } from "../../app-services";
import { presentComment } from "../../presenters/engagement";
import * as comments from "../../repositories/comments";
import { assertPathMatch } from "../../schemas/common";
import { findListedPod } from "../../services/pod-drafts";
import { podNotFound } from "../../services/refs";
import type * as routes from "./comments.routes";

export const listComments: PlatformHandler<typeof routes.listCommentsRoute> = async (c) => {
  const { db, agents } = c.get("services");
  const pod = await findListedPod(db, c.req.valid("param").podId);
  if (!pod) throw podNotFound();
  const rows = await comments.listPodComments(db, pod.id, agents.commentsMaxItems);
  return c.json({ data: { comments: rows.map(presentComment) } }, 200);
};

export const createComment: PlatformHandler<typeof routes.createCommentRoute> = async (c) => {
  const { podId } = c.req.valid("param");
  const body = c.req.valid("json");
  assertPathMatch("podId", body.podId, podId);
  const { db } = c.get("services");
  const pod = await findListedPod(db, podId);
  if (!pod) throw podNotFound();
  const id = await comments.insertComment(db, { podKey: pod.id, userId: c.get("user").id, comment: body.comment });
  return c.json({ data: { id } }, 201);
};
