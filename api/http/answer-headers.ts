/**
 * Headers a middleware adds to the answer AFTER the handler made it (`await next()` first): served
 * by @hono/node-server, set on the Node response itself, which the adapter merges when it writes
 * the answer (changing `c.res.headers` instead builds a WHATWG Headers object for every answer:
 * ~10 µs of a ~25 µs bare request). The answer's own headers win, as the rate-limit headers want
 * (a 429's own standing). Elsewhere (`app.request()` in tests) and for appended values (`Vary`),
 * the header goes on `c.res`.
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
