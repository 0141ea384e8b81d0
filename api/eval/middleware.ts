import type { MiddlewareHandler } from "hono";
import type { RateLimiterAbstract } from "rate-limiter-flexible";
import { createMiddleware } from "hono/factory";
import { authenticateEvalAccount } from "../http/auth/eval-api-key";
import { createAuthMiddleware } from "../http/auth/factory";
import { limitBody } from "../http/body-limit";
import { HttpError } from "../http/errors";
import { chargeBudget, clientIp, withRateLimitHeaders } from "../http/rate-limit";
import type { AppEnv } from "../http/types";
import type { EvalServices, EvalEnv } from "./app-services";

/** 413 `{"error":"Payload too large"}` for bodies over `maxSize` bytes, before anything parses them. */
/** A JSON body limit for one route (the one streaming mechanism of api/http/body-limit.ts). */
export const jsonBodyLimit = (maxBytes: number): MiddlewareHandler<AppEnv> => limitBody(maxBytes);

/**
 * A separate per-IP budget (e.g. key issuance). Not the shared `rateLimit`
 * middleware: that one charges each `ip:` key once per request across
 * limiters, so a second limiter behind it would never be charged.
 */
export function perIpBudget(limiter: RateLimiterAbstract, trustProxy: boolean): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    await chargeBudget(c, limiter, `ip:${clientIp(c, trustProxy)}`, "key-issuance");
    await withRateLimitHeaders(c, next);
  };
}

/**
 * Evaluation API key (`Authorization: Bearer <key>` or `x-api-key`): a missing, unknown or revoked
 * key is 401; sets the `account` variable, then charges the account's rate-limit budget.
 */
export const accountAuth = createAuthMiddleware<EvalServices, "account", string>("account", (c) =>
  authenticateEvalAccount(c, c.get("services").db),
);

/** `POST /keys`: 403 when open issuance is disabled, else the per-IP issuance budget. */
export const keyIssuance = createMiddleware<EvalEnv>(async (c, next) => {
  if (!c.get("services").config.keys.openIssuance) throw new HttpError(403, "API key issuance is disabled");
  return c.get("services").keyIssuanceBudget(c as never, next);
});
