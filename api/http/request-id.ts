export const REQUEST_ID_HEADER = "X-Request-Id";
const VALID_REQUEST_ID = /^[\w\-=]{1,255}$/;

/**
 * New request ids: UUID-shaped, a random UUID's first 74 random bits made once per process and a
 * 48-bit sequence number in place of the last 12 hex digits. As unique as random UUIDs across
 * processes, and less than half the cost of one per request (the front of cached reads answers in a
 * few microseconds, bench/read-path).
 */
const PROCESS_PREFIX = crypto.randomUUID().slice(0, 24);
let sequence = 0;

/** The client's `X-Request-Id` when it is 1-255 of `[A-Za-z0-9_-=]` (Hono's `requestId` rule), else a new id. */
export function requestIdFor(sent: string | undefined): string {
  if (sent !== undefined && VALID_REQUEST_ID.test(sent)) return sent;
  sequence = (sequence + 1) % 2 ** 48;
  return PROCESS_PREFIX + sequence.toString(16).padStart(12, "0");
}
