/**
 * A request header read from the Node request itself when served by @hono/node-server
 * (`c.env.incoming.headers`, a plain object Node builds once), else through Hono. `c.req.header()`
 * makes the adapter build a WHATWG Headers object of every request header for each request:
 * a few µs of a ~20 µs bare request (bench/read-path, CPU time per request), paid by every read
 * only to look at three or four headers. Same value but for a repeated header, which Node joins
 * with ", " (and a repeated Cookie with "; ").
 */
import type { IncomingHttpHeaders } from "node:http";
import type { Context } from "hono";

/** `name` in lower case (Node's keys). */
export function requestHeader(c: Context, name: Lowercase<string>): string | undefined {
  const incoming = (c.env as { incoming?: { headers?: IncomingHttpHeaders } } | undefined)?.incoming;
  if (!incoming?.headers) return c.req.header(name);
  return requestHeaderOf(incoming.headers, name);
}

/** The same read on a Node request's headers. */
export function requestHeaderOf(headers: IncomingHttpHeaders, name: Lowercase<string>): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value.join(", ") : value;
}
