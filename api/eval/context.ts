import type { Context } from "hono";
import type { Logger } from "pino";
import type { OffchainDb } from "../db/client";
import type { AppEnv } from "../http/types";
import { unauthorized } from "../http/errors";
import type { EvalConfig } from "./config";
import type { AttachmentStorage } from "./storage/index";

export const EVAL_BASE_PATH = "/api/v1";

/** What the Evaluation API's handlers are built from. */
export interface EvalContext {
  db: OffchainDb;
  config: EvalConfig;
  storage: AttachmentStorage;
  /** The service clock; tests drive it. */
  now: () => Date;
  logger: Logger;
}

/** `{eval_url}` as the client reached it: EVAL_PUBLIC_URL, else this request's origin + /api/v1. */
export function evalBaseUrl(c: Context<AppEnv>, ctx: EvalContext): string {
  return ctx.config.publicUrl ?? `${new URL(c.req.url).origin}${EVAL_BASE_PATH}`;
}

/** The authenticated account (the API-key middleware ran before). */
export function accountOf(c: Context<AppEnv>): string {
  const identity = c.var.identity;
  if (!identity || identity.kind !== "eval-account") throw unauthorized();
  return identity.id;
}
