/**
 * The front of cached reads: a Node request listener placed before a surface's app that answers,
 * straight from the Node request, an anonymous GET its response cache holds fresh (or a HEAD: the
 * same answer, whose body Node does not send), with what the surface's middleware gives that
 * answer: request id, the per-IP budget charged and shown, CORS, request metrics, the request line
 * (at debug), ETag/304. Every other request goes to the app (`next`).
 *
 * Why: through Hono, a cache hit costs its request and context objects, eight middleware
 * dispatches and a response object: ~1.8-2.5× a bare Hono route's CPU (bench/read-path), for an
 * answer whose bytes are already made. Here ~1.1-1.3× (bench reference `front`, by machine), of
 * which writing those bytes and headers is ~1.0× (`keptAnswer`). Hence no await when the read
 * version is known without a probe, and answers and header lists made once per cache entry.
 *
 * A miss, a stale entry or a failure goes to the app, with the IP budget already charged.
 *
 * The same answer either way: the pieces come from the modules the middleware uses (request-id,
 * rate-limit, cors, metrics, logger, response-cache), and the front only answers what the
 * middleware would answer from the cache without waiting for a strict read version (no
 * Authorization, no cookie, no Cache-Control), only for request targets Hono reads as they are
 * (no percent-escapes, no dot segments), and only within the IP's budget (over it, the app's 429).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Logger } from "pino";
import type { CorsOrigins } from "../env";
import type { BatchedRateLimiter } from "./batched-rate-limiter";
import { corsAnswerHeaders } from "./cors";
import { logRequest } from "./logger";
import { cacheLookupCounter, requestTimer } from "./metrics";
import { chargeIpAhead, markChargedAhead, pushRateLimitHeaders } from "./rate-limit";
import { requestHeaderOf } from "./request-headers";
import { REQUEST_ID_HEADER, requestIdFor } from "./request-id";
import type { CachedAnswer, ResponseCache } from "./response-cache";
import type { BudgetStanding, Surface } from "./types";

export type NodeListener = (incoming: IncomingMessage, outgoing: ServerResponse) => void;

type ReadMethod = "GET" | "HEAD";

export interface CachedReadFrontOptions {
  surface: Surface;
  cache: ResponseCache;
  /** The limiter of the surface's per-IP budget (the rate-limit middleware's). */
  limiter: BatchedRateLimiter;
  trustProxy: boolean;
  corsOrigins: CorsOrigins;
  /** The surface's logger (the one its request logger writes with). */
  logger: Logger;
}

/** A request target Hono's path is a plain slice of: no percent-escape, fragment or dot segment. */
const PLAIN_TARGET = /^\/[!$&-;=?-[\]_a-z~]*$/;
const DOT_SEGMENT = /\/\.\.?(?:[/?]|$)/;

/** Takes the listener of the app and gives the one to serve: the front, then the app. */
export function cachedReadFront(options: CachedReadFrontOptions): (next: NodeListener) => NodeListener {
  const { surface, cache, limiter, trustProxy, logger } = options;
  const cors = options.corsOrigins === "none" ? undefined : corsAnswerHeaders(options.corsOrigins);
  const countHit = cacheLookupCounter(surface, "response", "hit");
  // the request timer of each route answered, by method and status (a handful: the cached routes)
  const timersOf = () => ({ 200: new Map<string, (seconds: number) => void>(), 304: new Map<string, (seconds: number) => void>() });
  const timers = { GET: timersOf(), HEAD: timersOf() };
  const timerOf = (method: ReadMethod, { status, route }: CachedAnswer) => {
    let timer = timers[method][status].get(route);
    if (!timer) timers[method][status].set(route, (timer = requestTimer(surface, method, status, route)));
    return timer;
  };

  const write = (incoming: IncomingMessage, outgoing: ServerResponse, answer: CachedAnswer, standing: BudgetStanding) => {
    // one flat list, which Node takes without building a header object
    const list = pushRateLimitHeaders(answer.headerList.slice(), standing);
    if (cors) {
      const corsHeaders = cors(requestHeaderOf(incoming.headers, "origin"));
      for (let i = 0; i < corsHeaders.length; i++) list.push(corsHeaders[i]!);
    }
    const requestId = requestIdFor(requestHeaderOf(incoming.headers, "x-request-id"));
    list.push(REQUEST_ID_HEADER, requestId);
    outgoing.writeHead(answer.status, list);
    if (answer.bodyText !== undefined) outgoing.end(answer.bodyText, "latin1");
    else outgoing.end(answer.body ?? undefined);
    return requestId;
  };

  return (next) => {
    const passOn = (incoming: IncomingMessage, outgoing: ServerResponse, standing: BudgetStanding) => {
      markChargedAhead(incoming, trustProxy, standing);
      next(incoming, outgoing);
    };

    const answerWith = (
      incoming: IncomingMessage,
      outgoing: ServerResponse,
      path: string,
      standing: BudgetStanding,
      startedAt: number,
      answer: CachedAnswer | undefined,
    ) => {
      if (!answer || outgoing.headersSent) return passOn(incoming, outgoing, standing);
      let requestId: string;
      try {
        requestId = write(incoming, outgoing, answer, standing);
      } catch {
        if (outgoing.headersSent) outgoing.destroy();
        else passOn(incoming, outgoing, standing);
        return;
      }
      const method = incoming.method as ReadMethod;
      countHit();
      timerOf(method, answer)((performance.now() - startedAt) / 1000);
      logRequest(logger, method, path, answer.status, startedAt, { requestId, fromCache: true });
    };

    return (incoming, outgoing) => {
      const target = incoming.url;
      const headers = incoming.headers;
      if (
        (incoming.method !== "GET" && incoming.method !== "HEAD") ||
        target === undefined ||
        headers.authorization !== undefined ||
        headers.cookie !== undefined ||
        headers["cache-control"] !== undefined ||
        !PLAIN_TARGET.test(target) ||
        DOT_SEGMENT.test(target)
      ) {
        return next(incoming, outgoing);
      }
      const query = target.indexOf("?");
      const path = query === -1 ? target : target.slice(0, query);
      const standing = cache.cacheable(path) ? chargeIpAhead(incoming, limiter, trustProxy) : undefined;
      if (!standing) return next(incoming, outgoing);
      const startedAt = performance.now();
      let answer: ReturnType<ResponseCache["freshAnswer"]>;
      try {
        answer = cache.freshAnswer({ host: headers.host ?? "", target }, requestHeaderOf(headers, "if-none-match"));
      } catch {
        answer = undefined; // the app answers it, and says what failed
      }
      if (!(answer instanceof Promise)) return answerWith(incoming, outgoing, path, standing, startedAt, answer);
      // the read version needs a probe: answered once it is back (a failed one: the app says what failed)
      answer.then(
        (kept) => answerWith(incoming, outgoing, path, standing, startedAt, kept),
        () => answerWith(incoming, outgoing, path, standing, startedAt, undefined),
      );
    };
  };
}
