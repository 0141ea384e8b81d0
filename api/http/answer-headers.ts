/**
 * Headers a middleware adds to the answer AFTER the handler made it (`await next()` first).
 *
 * Served by @hono/node-server (the API's servers), a header is set on the Node response itself
 * (`c.env.outgoing.setHeader`), which the adapter merges when it writes the answer: the answer
 * stays the adapter's lightweight Response with its plain header record, written by its fast path.
 * Reading or changing `c.res.headers` instead builds a WHATWG Headers object for every answer and
 * converts it back: with request id, CORS and rate-limit headers, ~10 µs of a ~25 µs bare
 * request (bench/read-path, CPU time per request). Node gives the headers of the answer precedence
 * over these, as the rate-limit headers want (an error's own standing wins); no middleware sets a
 * header the handler also sets.
 *
 * Elsewhere (`app.request()` in tests) and for appended values (`Vary`, which a handler may also
 * set), the header goes on `c.res` (cheaper than `c.header()` before the handler: Hono would
 * rebuild an answer made while the context already holds a response).
 */
import type { ServerResponse } from "node:http";
import type { Context } from "hono";

type Outgoing = Pick<ServerResponse, "setHeader" | "headersSent">;

/** The Node response of the request, while its headers can still be set; undefined elsewhere. */
function outgoingOf(c: Context): Outgoing | undefined {
  const outgoing = (c.env as { outgoing?: Outgoing } | undefined)?.outgoing;
  return outgoing && typeof outgoing.setHeader === "function" && !outgoing.headersSent ? outgoing : undefined;
}

/** Whether answer headers go straight to the Node response (then the answer's own headers win). */
export function answerHeadersDirect(c: Context): boolean {
  return outgoingOf(c) !== undefined;
}

export function setAnswerHeader(c: Context, name: string, value: string, append = false): void {
  if (!append) {
    const outgoing = outgoingOf(c);
    if (outgoing) {
      outgoing.setHeader(name, value);
      return;
    }
  }
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

