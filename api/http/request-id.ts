export const REQUEST_ID_HEADER = "X-Request-Id";
const VALID_REQUEST_ID = /^[\w\-=]{1,255}$/;

/** The client's `X-Request-Id` when it is 1-255 of `[A-Za-z0-9_-=]`, else a new UUID (Hono's `requestId` rule). */
export function requestIdFor(sent: string | undefined): string {
  return sent !== undefined && VALID_REQUEST_ID.test(sent) ? sent : crypto.randomUUID();
}
