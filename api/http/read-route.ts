/**
 * Which reads of a request may go to a hot standby (api/db/read-replicas.ts), and read-your-writes
 * across API replicas.
 *
 * - An anonymous GET or HEAD (no Authorization, no x-api-key, no cookie but the read-after one)
 *   reads from a replica. Authenticated reads stay on the primary: they are a small share of the
 *   traffic and often follow the caller's own writes; the primary needs no position to be right.
 * - After a request that wrote, the answer carries the primary's WAL position in `X-Read-After`
 *   and in the cookie `dm_read_after` (Max-Age: the lag bound plus a second). Any API replica
 *   serves a request carrying it from a replica that has replayed that position, else from the
 *   primary. Past the cookie's life every replica still in use has replayed the write (a replica
 *   more than DATABASE_READ_MAX_LAG_MS behind is skipped).
 */
import type { MiddlewareHandler } from "hono";
import { parseLsn, type ReadReplicas, requestWrote, runWithReadRoute } from "../db/read-replicas";
import { setAnswerHeader } from "./answer-headers";
import { requestHeader } from "./request-headers";

export const READ_AFTER_COOKIE = "dm_read_after";
export const READ_AFTER_HEADER = "X-Read-After";

/** The read-after cookie's value, and whether the request carries any other cookie. */
function cookies(header: string | undefined): { readAfter?: string; others: boolean } {
  if (header === undefined) return { others: false };
  let readAfter: string | undefined;
  let others = false;
  for (const part of header.split(";")) {
    const at = part.indexOf("=");
    const name = (at === -1 ? part : part.slice(0, at)).trim();
    if (name === READ_AFTER_COOKIE) readAfter = part.slice(at + 1).trim();
    else if (name !== "") others = true;
  }
  return { readAfter, others };
}

export function readRoute(replicas: ReadReplicas): MiddlewareHandler {
  const maxAge = Math.ceil(replicas.maxLagMs / 1000) + 1;
  return async (c, next) => {
    const method = c.req.method;
    if (method === "OPTIONS") return next();
    const { readAfter, others } = cookies(requestHeader(c, "cookie"));
    const floor = parseLsn(readAfter);
    if (method === "GET" || method === "HEAD") {
      const anonymous =
        !others && requestHeader(c, "authorization") === undefined && requestHeader(c, "x-api-key") === undefined;
      return runWithReadRoute({ replicas: anonymous, floor }, next);
    }
    return runWithReadRoute({ replicas: false, floor }, async () => {
      await next();
      if (!requestWrote()) return;
      const position = await replicas.primaryPosition().catch(() => undefined);
      if (!position) return;
      setAnswerHeader(c, READ_AFTER_HEADER, position);
      setAnswerHeader(
        c,
        "Set-Cookie",
        `${READ_AFTER_COOKIE}=${position}; Max-Age=${maxAge}; Path=/; HttpOnly; SameSite=Lax`,
        true,
      );
    });
  };
}
