/**
 * The front of cached reads: a Node request listener placed before a surface's app that answers,
 * straight from the Node request, an anonymous GET its response cache holds fresh (or a HEAD: the
 * same answer, whose body Node does not send), with what the surface's middleware gives that
 * answer: request id, the per-IP budget charged (and shown), CORS,
 * request metrics, the request line (at debug), ETag/304. Every other request goes to the app.
 *
 * Why: through Hono, a cache hit costs its request and context objects, eight middleware
 * dispatches and a response object: ~1.8-2.5× a bare Hono route's CPU (bench/read-path), for an
 * answer whose bytes are already made. Here ~1.0-1.2× (bench reference `front`, by machine), of
 * which writing those bytes and headers is ~0.9-1.0× (`keptAnswer`). Hence no await when the read
 * version is known without a probe, answers made once per cache entry, and each answer's header
 * lists (with its CORS headers and blanks for the per-request values) and timer made once.
 *
 * A miss, a stale entry or an IP over its budget goes to the app uncharged (its middleware charges
 * it); an answer that fails to be written goes to the app with the IP budget marked charged.
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
import { chargeIpAhead, markChargedAhead, putRateLimitHeaders, RATE_LIMIT_HEADERS } from "./rate-limit";
import { requestHeaderOf } from "./request-headers";
import { REQUEST_ID_HEADER, requestIdFor } from "./request-id";
import type { CachedAnswer, ResponseCache } from "./response-cache";
import type { BudgetStanding, Surface } from "./types";

export type NodeListener = (incoming: IncomingMessage, outgoing: ServerResponse) => void;

type ReadMethod = "GET" | "HEAD";

/** What the front sends a kept answer with. */
interface Sending {
  /** The answer's headers, then the CORS ones and the request id's, its value blank. */
  headers: readonly string[];
  /** The same with blanks for the RateLimit-* ones after the answer's: for a budget that is shown (made on first use). */
  withStanding?: readonly string[];
  /** The CORS headers in `headers`. */
  corsHeaders: readonly string[];
  /** The answer's request timer by method, made on first use. */
  timers: Partial<Record<ReadMethod, (seconds: number) => void>>;
}

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

/** Takes the listener of the app and gives the one to serve: the front, then the app. */
export function cachedReadFront(options: CachedReadFrontOptions): (next: NodeListener) => NodeListener {
  const { surface, cache, limiter, trustProxy, logger } = options;
  const corsHeadersFor = corsAnswerHeaders(options.corsOrigins);
  const countHit = cacheLookupCounter(surface, "response", "hit");
  /** What each kept answer is sent with, made on its first request (answers are kept per cache entry). */
  const sendings = new WeakMap<CachedAnswer, Sending>();

  /** An answer's headers, then blanks for the RateLimit-* ones (`standing`), then the CORS ones, then a blank for the request id. */
  const headerTemplate = (answer: CachedAnswer, corsHeaders: readonly string[], standing: boolean) => {
    const template = answer.headerList.slice();
    if (standing) for (let i = 0; i < RATE_LIMIT_HEADERS.length * 2; i++) template.push("");
    for (let i = 0; i < corsHeaders.length; i++) template.push(corsHeaders[i]!);
    template.push(REQUEST_ID_HEADER, "");
    return template;
  };

  const sendingOf = (answer: CachedAnswer, corsHeaders: readonly string[]): Sending => {
    const kept = sendings.get(answer);
    if (kept?.corsHeaders === corsHeaders) return kept;
    // (CORS headers are one list per origin: another origin's request replaces it)
    const sending = { headers: headerTemplate(answer, corsHeaders, false), corsHeaders, timers: kept?.timers ?? {} };
    sendings.set(answer, sending);
    return sending;
  };

  const timerOf = (sending: Sending, method: ReadMethod, { status, route }: CachedAnswer) =>
    (sending.timers[method] ??= requestTimer(surface, method, status, route));

  const write = (incoming: IncomingMessage, outgoing: ServerResponse, answer: CachedAnswer, sending: Sending, standing: BudgetStanding) => {
    // one flat list, which Node takes without building a header object: the template, its blanks filled
    const list = (sending.withStanding ??= headerTemplate(answer, sending.corsHeaders, true)).slice();
    putRateLimitHeaders(list, answer.headerList.length, standing);
    const requestId = requestIdFor(requestHeaderOf(incoming.headers, "x-request-id"));
    list[list.length - 1] = requestId;
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
      startedAt: number,
      answer: CachedAnswer | undefined,
    ) => {
      // the app answers a miss, a target Hono does not read as sent, and an IP over its budget (429)
      if (!answer?.plainTarget || outgoing.headersSent) return next(incoming, outgoing);
      const standing = chargeIpAhead(incoming, limiter, trustProxy);
      if (!standing) return next(incoming, outgoing);
      const sending = sendingOf(answer, corsHeadersFor(requestHeaderOf(incoming.headers, "origin")));
      let requestId: string;
      try {
        requestId = write(incoming, outgoing, answer, sending, standing);
      } catch {
        if (outgoing.headersSent) outgoing.destroy();
        else passOn(incoming, outgoing, standing);
        return;
      }
      const method = incoming.method as ReadMethod;
      countHit();
      timerOf(sending, method, answer)((performance.now() - startedAt) / 1000);
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
        headers["cache-control"] !== undefined
      ) {
        return next(incoming, outgoing);
      }
      const query = target.indexOf("?");
      const path = query === -1 ? target : target.slice(0, query);
      if (!cache.cacheable(path)) return next(incoming, outgoing);
      const startedAt = performance.now();
      let answer: ReturnType<ResponseCache["freshAnswer"]>;
      try {
        answer = cache.freshAnswer({ host: headers.host ?? "", target }, requestHeaderOf(headers, "if-none-match"));
      } catch {
        answer = undefined; // the app answers it, and says what failed
      }
      if (!(answer instanceof Promise)) return answerWith(incoming, outgoing, path, startedAt, answer);
      // the read version needs a probe: answered once it is back (a failed one: the app says what failed)
      answer.then(
        (kept) => answerWith(incoming, outgoing, path, startedAt, kept),
        () => answerWith(incoming, outgoing, path, startedAt, undefined),
      );
    };
  };
}
