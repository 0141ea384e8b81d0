import { errorResponse } from "../../http/openapi";

/** Security requirement of the key-protected routes: either header works. */
export const API_KEY_SECURITY: Record<string, string[]>[] = [{ ApiKeyBearer: [] }, { ApiKeyHeader: [] }];

export const commonErrors = {
  400: errorResponse("Invalid request (the message names the failing field)"),
  401: errorResponse("Missing, unknown or revoked API key: `{\"error\":\"Unauthorized\"}`"),
  429: errorResponse("Rate limit exceeded; see Retry-After"),
} as const;

export const bodyErrors = {
  413: errorResponse("Body too large"),
  415: errorResponse("Body is not JSON"),
} as const;
