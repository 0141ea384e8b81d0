import { commonErrors, errorResponse } from "../../http/openapi";

/** Security requirement of the key-protected routes: either header works. */
export const API_KEY_SECURITY: Record<string, string[]>[] = [{ ApiKeyBearer: [] }, { ApiKeyHeader: [] }];

/** The errors of every key-protected route (the shared descriptions of http/openapi.ts). */
export const apiKeyErrors = { 400: commonErrors[400], 401: commonErrors[401], 429: commonErrors[429] } as const;

export const bodyErrors = {
  413: errorResponse("Body too large"),
  415: errorResponse("Body is not JSON"),
} as const;
