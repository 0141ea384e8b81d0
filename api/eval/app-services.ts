import type { RouteConfig } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import type { Logger } from "pino";
import type { AuthEnv } from "../http/auth/factory";
import type { AppEnv, AppRouteHandler, ServicesEnv, SurfaceServices } from "../http/types";
import type { EvalConfig } from "./config";
import type { AttachmentStorage } from "./storage/index";

export const EVAL_BASE_PATH = "/api/v1";

/** What the Evaluation API's handlers use: `c.get("services")`, set once per app. */
export interface EvalServices extends SurfaceServices {
  config: EvalConfig;
  storage: AttachmentStorage;
  /** The service clock; tests drive it. */
  now: () => Date;
  logger: Logger;
  /** The per-IP budget of `POST /keys`. */
  keyIssuanceBudget: MiddlewareHandler<AppEnv>;
}

export type EvalEnv = ServicesEnv<EvalServices>;
/** After `accountAuth` (every `/agents/*` path): `c.get("account")` is the caller's account id. */
export type EvalAccountEnv = AuthEnv<EvalServices, "account", string>;

/** An Evaluation API handler typed by its route. */
export type EvalHandler<R extends RouteConfig> = AppRouteHandler<R, EvalEnv>;
/** A handler of an `/agents/*` route, behind `accountAuth`. */
export type EvalAccountHandler<R extends RouteConfig> = AppRouteHandler<R, EvalAccountEnv>;

/** `{eval_url}` as the client reached it: EVAL_PUBLIC_URL, else this request's origin + /api/v1. */
export function evalBaseUrl(c: { req: { url: string }; get(key: "services"): EvalServices }): string {
  return c.get("services").config.publicUrl ?? `${new URL(c.req.url).origin}${EVAL_BASE_PATH}`;
}
