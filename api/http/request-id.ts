export const REQUEST_ID_HEADER = "X-Request-Id";
const VALID_REQUEST_ID = /^[\w\-=]{1,255}$/;

/**
 * New request ids: UUID-shaped, a random UUID's first 74 random bits made once per process and a
 * 48-bit sequence number in place of the last 12 hex digits. As unique as random UUIDs across
 * processes, and a fraction of the cost of one per request: the sequence's last 3 hex digits come
 * from a table, the rest is made once every 4,096 ids.
 */
const PROCESS_PREFIX = crypto.randomUUID().slice(0, 24);
const LAST_DIGITS = Array.from({ length: 4096 }, (_, low) => low.toString(16).padStart(3, "0"));
let sequence = 0;
/** The prefix and the sequence's first 9 hex digits, for the current run of 4,096. */
let leading = "";

/** The client's `X-Request-Id` when it is 1-255 of `[A-Za-z0-9_-=]` (Hono's `requestId` rule), else a new id. */
export function requestIdFor(sent: string | undefined): string {
  if (sent !== undefined && VALID_REQUEST_ID.test(sent)) return sent;
  sequence = (sequence + 1) % 2 ** 48;
  const low = sequence % 4096;
  if (low === 0 || leading === "") {
    leading = PROCESS_PREFIX + Math.floor(sequence / 4096).toString(16).padStart(9, "0");
  }
  return leading + LAST_DIGITS[low];
}
