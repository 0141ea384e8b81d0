/**
 * The chat server's route kinds (see `api/http/route.ts`): a routes file makes its set once,
 * `const route = chatRoutes(["Pods"])`, and declares each route with the kind that says whether it
 * needs a wallet session and reads chain tables.
 */
import { chainReady } from "../../http/middleware";
import { errorResponse } from "../../http/openapi";
import { routeKind } from "../../http/route";
import { walletAuth } from "../middleware";

const rateLimited = { 429: errorResponse("Rate limited") };
const session = {
  security: [{ walletSession: [] }],
  responses: { 401: errorResponse("Missing, expired or invalid session token"), ...rateLimited },
};

/** The kinds of a resource's routes under `tags`. */
export function chatRoutes(tags: string[]) {
  return {
    /** No credential (the sign-in itself). */
    open: routeKind({ tags, middleware: [], responses: rateLimited }),
    /** A wallet session token (`walletAuth`, `c.get("wallet")`). */
    wallet: routeKind({ tags, ...session, middleware: [walletAuth] }),
    /** `wallet`, then `chainReady` (503 until the indexer's views exist). */
    walletIndexed: routeKind({
      tags,
      security: session.security,
      middleware: [walletAuth, chainReady],
      responses: { ...session.responses, 503: errorResponse("Indexer not ready") },
    }),
  };
}
