import type { OpenAPIHono, RouteHandler } from "@hono/zod-openapi";
import type { RateLimiterAbstract } from "rate-limiter-flexible";
import { HttpError } from "../../../http/errors";
import type { AppEnv } from "../../../http/types";
import type { EvalContext } from "../../context";
import { perIpBudget } from "../../middleware";
import { issueKeyForNewAccount } from "./queries";
import { issueKeyRoute } from "./routes";

export const DEFAULT_ACCOUNT_NAME = "anonymous";

export function issueKeyHandler(ctx: EvalContext): RouteHandler<typeof issueKeyRoute, AppEnv> {
  return async (c) => {
    const body = c.req.valid("json");
    const issued = await issueKeyForNewAccount(ctx.db, body.name?.trim() || DEFAULT_ACCOUNT_NAME, "POST /keys");
    ctx.logger.info({ accountId: issued.accountId, keyId: issued.keyId }, "api key issued");
    return c.json(
      {
        key: issued.key,
        keyId: issued.keyId,
        accountId: issued.accountId,
        accountName: issued.accountName,
        createdAt: issued.createdAt.toISOString(),
      },
      201,
    );
  };
}

export interface KeyRoutesOptions {
  limiter: RateLimiterAbstract;
  trustProxy: boolean;
}

export function registerKeyRoutes(router: OpenAPIHono<AppEnv>, ctx: EvalContext, options: KeyRoutesOptions): void {
  router.use(issueKeyRoute.path, async (c, next) => {
    if (c.req.method !== "POST") return next();
    if (!ctx.config.keys.openIssuance) throw new HttpError(403, "API key issuance is disabled");
    return perIpBudget(options.limiter, options.trustProxy)(c, next);
  });
  router.openapi(issueKeyRoute, issueKeyHandler(ctx));
}
