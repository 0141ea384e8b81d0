import type { Logger } from "pino";

/** Who a request acts as, set by the auth middleware of each surface. */
export interface Identity {
  kind: "user" | "agent" | "wallet" | "eval-account";
  id: string;
}

export interface AppVariables {
  requestId: string;
  /** Request-scoped logger carrying the request id. */
  logger: Logger;
  identity?: Identity;
}

export interface AppEnv {
  Variables: AppVariables;
}
