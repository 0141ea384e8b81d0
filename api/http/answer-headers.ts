/**
 * Headers a middleware adds to the answer AFTER the handler made it (`await next()` first).
 * Cheaper than `c.header()` before the handler: Hono rebuilds an answer made while the context
 * already holds a response (as a streamed copy), and merges prepared headers into a new Headers
 * object for every answer; setting them on the finished answer does neither.
 */
import type { Context } from "hono";

export function setAnswerHeader(c: Context, name: string, value: string, append = false): void {
  try {
    if (append) c.res.headers.append(name, value);
    else c.res.headers.set(name, value);
  } catch {
    // an answer with immutable headers (e.g. a proxied fetch): copy it once
    c.res = new Response(c.res.body, c.res);
    if (append) c.res.headers.append(name, value);
    else c.res.headers.set(name, value);
  }
}
