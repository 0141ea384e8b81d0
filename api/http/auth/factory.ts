import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import type { AppEnv, ServicesEnv, Identity, SurfaceServices } from "../types";

/** What an authenticator found: the caller (set as `c.var[variable]`) and the rate-limit identity. */
export interface Authenticated<P> {
  principal: P;
  identity: Identity;
}

/** The env after an auth middleware made by `createAuthMiddleware(variable, ...)`. */
export type AuthEnv<C extends SurfaceServices, K extends string, P> = {
  Variables: ServicesEnv<C>["Variables"] & { [key in K]: P };
};

/**
 * The one way to attach auth: a typed middleware, made once per kind of credential. It runs
 * `authenticate` (which throws 401/403 HttpErrors), sets the caller as `c.var[variable]` and the
 * request's `identity`, then charges that identity's rate-limit budget (`ctx.identityRateLimit`).
 * Handlers read the caller with `c.var[variable]` (`c.get("user")`, `c.get("agent")`, `c.get("wallet")`, `c.get("account")`).
 */
export function createAuthMiddleware<C extends SurfaceServices, K extends string, P>(
  variable: K,
  authenticate: (c: Context<ServicesEnv<C>>) => Promise<Authenticated<P>>,
) {
  return createMiddleware<AuthEnv<C, K, P>>(async (c, next) => {
    const { principal, identity } = await authenticate(c as unknown as Context<ServicesEnv<C>>);
    const context = c as unknown as Context<AppEnv>;
    context.set(variable as never, principal as never);
    context.set("identity", identity);
    return c.get("services").identityRateLimit(context, next);
  });
}
