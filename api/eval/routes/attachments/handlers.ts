import type { OpenAPIHono, RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../../http/types";
import { accountOf, evalBaseUrl, type EvalContext } from "../../context";
import { newAttachmentKey } from "../../ids";
import { LIMITS } from "../../limits";
import { insertUpload } from "./queries";
import { requestUploadRoute } from "./routes";

export function requestUploadHandler(ctx: EvalContext): RouteHandler<typeof requestUploadRoute, AppEnv> {
  return async (c) => {
    const accountId = accountOf(c);
    const { filename, contentType } = c.req.valid("json");
    const now = ctx.now();
    const key = newAttachmentKey();
    const expiresAt = new Date(now.getTime() + LIMITS.urlLifetimeSeconds * 1000);
    const uploadUrl = await ctx.storage.uploadUrl(key, {
      baseUrl: evalBaseUrl(c, ctx),
      now,
      expiresInSeconds: LIMITS.urlLifetimeSeconds,
    });
    await insertUpload(ctx.db, { accountId, key, filename, contentType, expiresAt, createdAt: now });
    return c.json({ key, uploadUrl, expiresAt: expiresAt.toISOString() }, 200);
  };
}

export function registerAttachmentRoutes(router: OpenAPIHono<AppEnv>, ctx: EvalContext): void {
  router.openapi(requestUploadRoute, requestUploadHandler(ctx));
}
