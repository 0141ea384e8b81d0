import { type EvalAccountHandler, evalBaseUrl } from "../../app-services";
import { newAttachmentKey } from "../../ids";
import { LIMITS } from "../../limits";
import { insertUpload } from "../../repositories/attachments";
import type * as routes from "./attachments.routes";

export const requestUpload: EvalAccountHandler<typeof routes.requestUploadRoute> = async (c) => {
  const ctx = c.get("services");
  const accountId = c.get("account");
  const { filename, contentType } = c.req.valid("json");
  const now = ctx.now();
  const key = newAttachmentKey();
  const expiresAt = new Date(now.getTime() + LIMITS.urlLifetimeSeconds * 1000);
  const uploadUrl = await ctx.storage.uploadUrl(key, {
    baseUrl: evalBaseUrl(c),
    now,
    expiresInSeconds: LIMITS.urlLifetimeSeconds,
  });
  await insertUpload(ctx.db, { accountId, key, filename, contentType, expiresAt, createdAt: now });
  return c.json({ key, uploadUrl, expiresAt: expiresAt.toISOString() }, 200);
};
