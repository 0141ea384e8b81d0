/**
 * The Evaluation API's route kinds (see `api/http/route.ts`): a routes file makes its set once,
 * `const route = evalRoutes(["Evaluations"])`, and declares each route with its kind. The API key
 * itself (`accountAuth`) is mounted on the `/agents/*` prefix, so the key kinds state its
 * `security` and errors, not the middleware.
 */
import { commonErrors, errorResponse } from "../../http/openapi";
import { routeKind } from "../../http/route";
import { LIMITS } from "../limits";
import { jsonBodyLimit } from "../middleware";

/** Security requirement of the key-protected routes: either header works. */
export const API_KEY_SECURITY: Record<string, string[]>[] = [{ ApiKeyBearer: [] }, { ApiKeyHeader: [] }];

/** The errors of every key-protected route (the shared descriptions of http/openapi.ts). */
export const apiKeyErrors = { 400: commonErrors[400], 401: commonErrors[401], 429: commonErrors[429] } as const;

/** The errors of a route with its own JSON body limit (`jsonBodyLimit`). */
export const bodyErrors = {
  413: errorResponse("Body too large"),
  415: errorResponse("Body is not JSON"),
} as const;

/** The kinds of a resource's routes under `tags`; `bodyBytes` caps the JSON body of `keyJson` routes. */
export function evalRoutes(tags: string[], bodyBytes: number = LIMITS.smallBodyBytes) {
  return {
    /** No API key: the capability is elsewhere (a signed URL). */
    open: routeKind({ tags, middleware: [], responses: {} }),
    /** The API key (`c.get("account")`). */
    key: routeKind({ tags, middleware: [], security: API_KEY_SECURITY, responses: apiKeyErrors }),
    /** `key`, with a JSON body of at most `bodyBytes`. */
    keyJson: routeKind({
      tags,
      middleware: [jsonBodyLimit(bodyBytes)],
      security: API_KEY_SECURITY,
      responses: { ...apiKeyErrors, ...bodyErrors },
    }),
  };
}
