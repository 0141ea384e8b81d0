/**
 * Response cache of the public reads, keyed by Host and path with query, valid for one read
 * version (indexer checkpoint + deployment + off-chain change counter, see read-version.ts): any
 * indexed block and any off-chain write makes its entries old. The rule replicas rely on: an
 * answer kept under a version was computed from data read at or after that version, and a
 * request is answered only from an entry of the version it read (strict for a caller that may
 * have written), or, while the new answer is computed, the one it replaces (below).
 *
 * - only GET (and HEAD, answered as its GET without the body) of the listed paths, without an
 *   `Authorization` header, and only 200 JSON answers;
 * - single flight: concurrent misses of one URL run the handler once; while it runs, the others
 *   get the answer it replaces if that one is of the same version (past its TTL) or of the
 *   version before, when only the checkpoint moved and at most `maxStaleMs` ago (so an indexed
 *   vote shows within maxStaleMs + one computation; an off-chain write is never served stale);
 * - `ETag` (hash of the body, so equal across replicas) and `If-None-Match` → 304;
 *   `Cache-Control: public, max-age=1, stale-while-revalidate=5` (see CACHE_CONTROL);
 * - bounded: at most `maxEntries` responses and `maxBytes` bytes, oldest dropped first, and an
 *   entry is recomputed after `ttlMs` even without a version change (time-dependent fields).
 */
import { createHash } from "node:crypto";
import type { MiddlewareHandler } from "hono";
import { countCacheLookup } from "./metrics";
import type { ReadVersion } from "./read-version";
import type { AppEnv } from "./types";
import { requestHeader } from "./request-headers";

export interface ResponseCacheOptions {
  version: ReadVersion;
  /** Whether the request's path may be cached (the caller lists its public read routes). */
  cacheable: (path: string) => boolean;
  maxEntries?: number;
  maxBytes?: number;
  ttlMs?: number;
  /**
   * After the indexer's checkpoint moves, the previous answer of a URL may still be served to
   * requests that arrive while the new one is computed, for at most this long (default 900 ms:
   * with the probe, within the 1 s freshness target).
   */
  maxStaleMs?: number;
}

interface Entry {
  body: Uint8Array;
  contentType: string;
  etag: string;
  /** The indexed block the body reflects (chainReady's X-Indexed-Block headers), sent with every answer of it. */
  blockHeaders: Record<string, string>;
  storedAt: number;
  /** The read version it was computed at. */
  version: string;
}

/** "checkpoint:deployment:offchain" → "offchain" (see read-version.ts). */
const offchainPart = (version: string) => version.slice(version.lastIndexOf(":") + 1);

/**
 * Anonymous reads: a reverse proxy or CDN may answer for 1 s and serve the stale copy for 5 s more
 * while it revalidates (ETag → 304), so it carries load while an indexed vote still shows within ~1 s.
 */
export const CACHE_CONTROL = "public, max-age=1, stale-while-revalidate=5";
export const CACHE_STATUS_HEADER = "x-cache";

export interface ResponseCache {
  middleware: MiddlewareHandler<AppEnv>;
  /** Entries held (tests, metrics). */
  size(): number;
}

const matchesEtag = (ifNoneMatch: string | undefined, etag: string) =>
  ifNoneMatch?.split(",").some((tag) => tag.trim() === etag || tag.trim() === "*") === true;

/** The 200 of a kept body, or its 304, with `x-cache: status`. */
function answerOf(entry: Entry, ifNoneMatch: string | undefined, status: "hit" | "stale" | "miss"): Response {
  const common = { etag: entry.etag, "cache-control": CACHE_CONTROL, [CACHE_STATUS_HEADER]: status };
  if (matchesEtag(ifNoneMatch, entry.etag)) return new Response(null, { status: 304, headers: { ...common, ...entry.blockHeaders } });
  // content-length also for a HEAD, whose answer has no body to take it from
  const headers = { ...common, "content-type": entry.contentType, "content-length": String(entry.body.byteLength), ...entry.blockHeaders };
  return new Response(entry.body as Uint8Array<ArrayBuffer>, { status: 200, headers });
}

export function createResponseCache(options: ResponseCacheOptions): ResponseCache {
  const maxEntries = options.maxEntries ?? 10_000;
  const maxBytes = options.maxBytes ?? 64 * 2 ** 20;
  const ttlMs = options.ttlMs ?? 10_000;
  const maxStaleMs = options.maxStaleMs ?? 900;
  /** Entries by Host and target, in the order they were stored (the oldest is dropped first). */
  const entries = new Map<string, Entry>();
  let bytes = 0;
  /** The newest version seen, and when the one before it was replaced. */
  let latest: { version: string; seenAt: number } | undefined;
  let previous: string | undefined;
  /** The computation of a URL at a version (single flight). */
  const pending = new Map<string, Promise<Entry | undefined>>();
  /** The latest computation of a URL, whatever its version: at most one per URL at a time. */
  const running = new Map<string, Promise<unknown>>();

  const see = (version: string) => {
    if (latest?.version === version) return;
    previous = latest?.version;
    latest = { version, seenAt: Date.now() };
  };

  /**
   * May `entry` answer a request at version `seen` while the fresh answer is being computed? Yes
   * for an entry of this version past its TTL, and for one of the version just before when only
   * the indexer's checkpoint moved (never an off-chain write) less than maxStaleMs ago.
   */
  const servableWhileRefreshing = (entry: Entry, seen: string): boolean => {
    if (entry.version === seen) return true;
    return (
      entry.version === previous &&
      latest?.version === seen &&
      offchainPart(entry.version) === offchainPart(seen) &&
      Date.now() - latest.seenAt < maxStaleMs
    );
  };

  const drop = (key: string) => {
    const old = entries.get(key);
    if (old) bytes -= old.body.byteLength;
    entries.delete(key);
  };

  const store = (key: string, entry: Entry) => {
    drop(key);
    if (entry.body.byteLength > maxBytes / 4) return;
    entries.set(key, entry);
    bytes += entry.body.byteLength;
    for (const oldest of entries.keys()) {
      if (entries.size <= maxEntries && bytes <= maxBytes) break;
      drop(oldest);
    }
  };

  const answer = (c: Parameters<MiddlewareHandler<AppEnv>>[0], entry: Entry, status: "hit" | "stale") => {
    countCacheLookup(c.get("surface"), "response", status);
    c.set("answeredFromCache", true);
    return answerOf(entry, requestHeader(c, "if-none-match"), status);
  };

  const middleware: MiddlewareHandler<AppEnv> = async (c, next) => {
    const method = c.req.method;
    // a HEAD is answered as its GET (Hono runs the GET route and drops the body)
    if (method !== "GET" && method !== "HEAD") {
      if (method === "OPTIONS") return next();
      // a write through this process: the next read of this replica sees it
      try {
        await next();
      } finally {
        options.version.invalidate();
      }
      return;
    }
    if (!options.cacheable(c.req.path) || requestHeader(c, "authorization")) return next();
    // a caller that may have just written (a cookie, or asks to revalidate) waits for a fresh
    // version; anyone else gets one at most the version's maxAgeMs old
    const strict = requestHeader(c, "cookie") !== undefined || requestHeader(c, "cache-control")?.includes("no-cache") === true;
    const seen = strict ? await options.version.current() : await options.version.recent();
    if (seen === undefined) return next();
    see(seen);
    // the request's absolute URL: its Host, path and query
    const key = c.req.url;

    const cached = entries.get(key);
    if (cached && cached.version === seen && Date.now() - cached.storedAt < ttlMs) return answer(c, cached, "hit");

    const flightKey = `${seen}\n${key}`;
    const shared = pending.get(flightKey);
    if (shared) {
      // someone computes the fresh answer: the entry being replaced may serve meanwhile
      if (cached && servableWhileRefreshing(cached, seen)) return answer(c, cached, "stale");
      const entry = await shared;
      if (entry) return answer(c, entry, "hit");
      countCacheLookup(c.get("surface"), "response", "miss");
      return next(); // the leader's answer was not cacheable: run the handler
    }

    countCacheLookup(c.get("surface"), "response", "miss");
    let settle!: (entry: Entry | undefined) => void;
    const flight = new Promise<Entry | undefined>((resolve) => (settle = resolve));
    pending.set(flightKey, flight);
    let entry: Entry | undefined;
    const prior = running.get(key);
    running.set(key, flight);
    try {
      // one computation per URL at a time: a new block does not pile up queries behind a slow one
      if (prior) await prior;
      await next();
      const res = c.res;
      const contentType = res.headers.get("content-type") ?? "";
      // (an encoded answer is not kept: the cache answers every client with the same bytes)
      if (
        res.status === 200 &&
        contentType.startsWith("application/json") &&
        !res.headers.has("set-cookie") &&
        !res.headers.has("content-encoding")
      ) {
        const body = new Uint8Array(await res.arrayBuffer());
        const etag = `"${createHash("sha1").update(body).digest("base64url").slice(0, 22)}"`;
        const blockHeaders = c.get("indexedBlockHeaders") ?? {};
        entry = { body, contentType, etag, blockHeaders, storedAt: Date.now(), version: seen };
        // computed from data at least as new as `seen`: keep it unless a newer version is known
        if (latest?.version === seen) store(key, entry);
        c.res = new Response(body, res);
        c.header("etag", etag);
        c.header("cache-control", CACHE_CONTROL);
        c.header(CACHE_STATUS_HEADER, "miss");
        c.header("content-length", String(body.byteLength));
      }
    } finally {
      settle(entry);
      pending.delete(flightKey);
      if (running.get(key) === flight) running.delete(key);
    }
  };

  return { middleware, size: () => entries.size };
}
