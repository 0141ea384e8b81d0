import type { Context, MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { HttpError } from "./errors";

const KB = 1024;
const MB = 1024 * KB;

/**
 * Largest request body of each surface, in bytes, checked before any route runs. Routes may set
 * a smaller one of their own (the Evaluation API: 1 MB on submit, 64 KB on its other JSON routes).
 */
export const SURFACE_BODY_LIMITS = {
  /** Every Platform API body is a small JSON document (the longest field: 5,000 characters of feedback). */
  platform: 64 * KB,
  /** Sign-in (a signature of at most 20,000 characters), pod mint and chat messages (4,000 characters). */
  chat: 64 * KB,
  /** The submit (the spec's largest legal body, ~200 KB at its bounds). The signed attachment upload streams to disk and cuts at 2 MB + 1 byte itself. */
  eval: 1 * MB,
} as const;

/**
 * 413 `{"error":"Payload too large"}` for a body over `maxBytes`: at once from Content-Length,
 * else while the body streams in (reading stops at `maxBytes`, so memory never grows with the
 * size a client attempts). One mechanism for every surface and route.
 */
export const limitBody = (maxBytes: number): MiddlewareHandler =>
  bodyLimit({
    maxSize: maxBytes,
    onError: () => {
      throw new HttpError(413, "Payload too large");
    },
  });

/** `limitBody` for every request but those `exempt` says cap their own body while streaming it. */
export function limitBodyExcept(maxBytes: number, exempt?: (c: Context) => boolean): MiddlewareHandler {
  const limit = limitBody(maxBytes);
  return (c, next) => (exempt?.(c) ? next() : limit(c, next));
}
