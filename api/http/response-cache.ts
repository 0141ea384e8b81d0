/**
 * Response cache of the public reads, keyed by URL (the Host and request target sent, see
 * RequestUrl) and valid for one read version (indexer checkpoint + off-chain change counter, see
 * read-version.ts): any indexed block that changes
 * the checkpoint, and any off-chain write, empties it. Per process: each replica fills its own
 * cache, and since every request first reads the version (a probe shared by concurrent requests),
 * no replica serves a response older than the data committed when the request arrived.
 *
 * - only GET of the listed paths (and HEAD, answered as its GET without the body), without an
 *   `Authorization` header, and only 200 answers;
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
import type { Context, MiddlewareHandler } from "hono";
import { answerWithHeaders } from "./answer-headers";
import { countCacheLookup, routeTemplate } from "./metrics";
import type { ReadVersion } from "./read-version";
import { isPlainTarget } from "./request-target";
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
   * requests that arrive while the new one is computed, for at most this long (default 900 ms: with the probe, within the 1 s freshness target).
   */
  maxStaleMs?: number;
}

interface Entry {
  url: RequestUrl;
  body: Uint8Array;
  /** What it holds: the body's bytes, and its text when small (CachedAnswer.bodyText). */
  bytes: number;
  etag: string;
  /** Its answers by x-cache value, made once (the front of cached reads sends them as they are). */
  answers: Record<"hit" | "stale", { ok: CachedAnswer; notModified: CachedAnswer }>;
  storedAt: number;
  /** The read version it was computed at. */
  version: string;
}

/** "checkpoint:offchain" → "offchain" (see read-version.ts). */
const offchainPart = (version: string) => version.slice(version.lastIndexOf(":") + 1);

/**
 * Anonymous reads: a reverse proxy or CDN may answer for 1 s and serve the stale copy for 5 s more
 * while it revalidates (ETag → 304), so it carries load while an indexed vote still shows within ~1 s.
 */
export const CACHE_CONTROL = "public, max-age=1, stale-while-revalidate=5";
export const CACHE_STATUS_HEADER = "x-cache";

/** The largest body also kept as text (CachedAnswer.bodyText). */
export const SMALL_BODY_BYTES = 1024;

/** A small body as its latin1 text (CachedAnswer.bodyText), else undefined. */
export function smallBodyText(body: Uint8Array): string | undefined {
  return body.byteLength <= SMALL_BODY_BYTES ? Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString("latin1") : undefined;
}

/** What a request answered from the cache gets: a 200 with the kept body, or a 304. */
export interface CachedAnswer {
  status: 200 | 304;
  body: Uint8Array | null;
  headers: Record<string, string>;
  /** `headers` as one flat list: name, value, name, value… */
  headerList: readonly string[];
  /**
   * A body of at most SMALL_BODY_BYTES as a latin1 string (one character per byte: the same bytes
   * written). Node writes a string body with the headers in one write, where a byte body takes a
   * gathered write of two pieces: ~0.8 µs less for a tiny answer, nothing gained from ~1 KiB on,
   * a loss from 4 KiB (bench/read-path `keptAnswer`, by body size).
   */
  bodyText?: string;
  /** The template of the route that computed the body. */
  route: string;
  /**
   * Whether Hono reads the request target it was kept by as sent (request-target.ts): only then
   * does the front of cached reads answer it (the path it logs is the app's).
   */
  plainTarget: boolean;
}

export interface ResponseCache {
  middleware: MiddlewareHandler<AppEnv>;
  /**
   * The answer of an anonymous GET of `url` that this cache holds fresh at the recent
   * read version, else undefined (nothing counted: the request is left to the middleware). For
   * the Node-level front of cached reads (cached-read-front.ts), which only asks for requests the
   * middleware would answer with `recent()` (no Authorization, no cookie, no Cache-Control).
   * At once when the read version is known without a probe, else once the probe answers.
   */
  freshAnswer(url: RequestUrl, ifNoneMatch: string | undefined): CachedAnswer | undefined | Promise<CachedAnswer | undefined>;
  /** Whether a request's path may be cached (the option it was made with). */
  cacheable(path: string): boolean;
  /** Entries held (tests, metrics). */
  size(): number;
}

/**
 * What a request is kept by: its Host and request target as the client sent them, so that a front
 * that sees only the Node request finds what the middleware stored.
 */
export interface RequestUrl {
  host: string;
  target: string;
}

type NodeIncoming = { url?: string; headers: { host?: string } };

function requestUrl(c: Context<AppEnv>): RequestUrl {
  const incoming = (c.env as { incoming?: NodeIncoming } | undefined)?.incoming;
  if (incoming?.url !== undefined) return { host: incoming.headers.host ?? "", target: incoming.url };
  const url = new URL(c.req.url);
  return { host: url.host, target: url.pathname + url.search };
}

/**
 * Entries by Host, then request target, and in the order they were stored (the oldest is dropped
 * first). Two lookups by the strings as sent: one key joined from them would be a new string to
 * flatten and hash on every request, ~0.2 µs of a kept answer's ~1 µs in the front (bench/read-path).
 */
class EntryStore {
  private readonly byHost = new Map<string, Map<string, Entry>>();
  private readonly stored = new Set<Entry>();
  private heldBytes = 0;

  get size(): number {
    return this.stored.size;
  }

  /** What the entries held keep (Entry.bytes). */
  get bytes(): number {
    return this.heldBytes;
  }

  get(host: string, target: string): Entry | undefined {
    return this.byHost.get(host)?.get(target);
  }

  /** Stores `entry` in place of the one of its URL. */
  set(entry: Entry): void {
    const { host, target } = entry.url;
    let ofHost = this.byHost.get(host);
    if (!ofHost) this.byHost.set(host, (ofHost = new Map()));
    const old = ofHost.get(target);
    if (old && this.stored.delete(old)) this.heldBytes -= old.bytes;
    ofHost.set(target, entry);
    this.stored.add(entry);
    this.heldBytes += entry.bytes;
  }

  delete(entry: Entry): void {
    if (!this.stored.delete(entry)) return;
    this.heldBytes -= entry.bytes;
    const ofHost = this.byHost.get(entry.url.host);
    ofHost?.delete(entry.url.target);
    if (ofHost?.size === 0) this.byHost.delete(entry.url.host);
  }

  /** Stored entries, the oldest first. */
  oldestFirst(): IterableIterator<Entry> {
    return this.stored.values();
  }
}

const flatList = (headers: Record<string, string>) => Object.entries(headers).flat();

/** The headers of a 200 answer of a kept body with `x-cache: status` (its computing miss's too). */
function okHeadersOf(body: Uint8Array, contentType: string, etag: string, status: "hit" | "stale" | "miss"): Record<string, string> {
  // content-length also for a HEAD, whose answer has no body to take it from
  return {
    etag,
    "cache-control": CACHE_CONTROL,
    "content-type": contentType,
    [CACHE_STATUS_HEADER]: status,
    "content-length": String(body.byteLength),
  };
}

/** What a computed answer keeps: its body (and, when small, its text), type, ETag, route and target. */
interface KeptBody {
  /** The indexed block the body reflects (chainReady's X-Indexed-Block headers), sent with every answer of it. */
  blockHeaders: Record<string, string>;
  body: Uint8Array;
  bodyText: string | undefined;
  contentType: string;
  etag: string;
  route: string;
  plainTarget: boolean;
}

/** The 200 and the 304 of a kept body, as a request with `x-cache: status` gets them. */
function answersOf({ blockHeaders, body, bodyText, contentType, etag, route, plainTarget }: KeptBody, status: "hit" | "stale") {
  const notModifiedHeaders = { etag, "cache-control": CACHE_CONTROL, [CACHE_STATUS_HEADER]: status, ...blockHeaders };
  const okHeaders = { ...okHeadersOf(body, contentType, etag, status), ...blockHeaders };
  const ok: CachedAnswer = { status: 200, body, headers: okHeaders, headerList: flatList(okHeaders), route, plainTarget, bodyText };
  const notModified: CachedAnswer = {
    status: 304,
    body: null,
    headers: notModifiedHeaders,
    headerList: flatList(notModifiedHeaders),
    route,
    plainTarget,
  };
  return { ok, notModified };
}

const matchesEtag = (ifNoneMatch: string | undefined, etag: string) =>
  ifNoneMatch?.split(",").some((tag) => tag.trim() === etag || tag.trim() === "*") === true;

export function createResponseCache(options: ResponseCacheOptions): ResponseCache {
  const maxEntries = options.maxEntries ?? 10_000;
  const maxBytes = options.maxBytes ?? 64 * 2 ** 20;
  const ttlMs = options.ttlMs ?? 10_000;
  const maxStaleMs = options.maxStaleMs ?? 900;
  let version: string | undefined;
  /** Recent versions in the order this process saw them, with when it first saw each. */
  const history: Array<{ version: string; seenAt: number }> = [];
  const entries = new EntryStore();
  /** The computation of a URL at a version (single flight). */
  const pending = new Map<string, Promise<Entry | undefined>>();
  /** The latest computation of a URL, whatever its version: at most one per URL at a time. */
  const running = new Map<string, Promise<unknown>>();

  const advance = (to: string) => {
    version = to;
    history.push({ version: to, seenAt: Date.now() });
    if (history.length > 64) history.shift();
  };

  /**
   * May `entry` answer a request at version `seen` while the fresh answer is being computed?
   * Yes for an entry of this version past its TTL, and for one of an older version when only the
   * indexer's checkpoint moved since (never an off-chain write) and the version that replaced
   * it was first seen less than maxStaleMs ago.
   */
  const servableWhileRefreshing = (entry: Entry, seen: string): boolean => {
    if (entry.version === seen) return true;
    if (offchainPart(entry.version) !== offchainPart(seen)) return false;
    const i = history.findIndex((h) => h.version === entry.version);
    const replacedAt = i >= 0 ? history[i + 1]?.seenAt : undefined;
    return replacedAt !== undefined && Date.now() - replacedAt < maxStaleMs;
  };

  const store = (entry: Entry) => {
    if (entry.body.byteLength > maxBytes / 4) {
      const old = entries.get(entry.url.host, entry.url.target);
      if (old) entries.delete(old);
      return;
    }
    entries.set(entry);
    for (const e of entries.oldestFirst()) {
      if (entries.size <= maxEntries && entries.bytes <= maxBytes) break;
      entries.delete(e);
    }
  };

  /** The entry of `url` computed at `seen` and younger than the TTL. */
  const freshEntry = (host: string, target: string, seen: string): Entry | undefined => {
    if (seen !== version) advance(seen);
    const cached = entries.get(host, target);
    return cached && cached.version === seen && Date.now() - cached.storedAt < ttlMs ? cached : undefined;
  };

  const cachedAnswer = (entry: Entry, ifNoneMatch: string | undefined, status: "hit" | "stale"): CachedAnswer => {
    const answers = entry.answers[status];
    return matchesEtag(ifNoneMatch, entry.etag) ? answers.notModified : answers.ok;
  };

  const answer = (c: Context<AppEnv>, entry: Entry, ifNoneMatch: string | undefined, status: "hit" | "stale") => {
    countCacheLookup(c.get("surface"), "response", status);
    c.set("answeredFromCache", true);
    const { body, status: code, headers } = cachedAnswer(entry, ifNoneMatch, status);
    return answerWithHeaders(body as Uint8Array<ArrayBuffer> | null, code, headers);
  };

  const freshAnswerAt = (seen: string | undefined, url: RequestUrl, ifNoneMatch: string | undefined) => {
    const entry = seen === undefined ? undefined : freshEntry(url.host, url.target, seen);
    return entry && cachedAnswer(entry, ifNoneMatch, "hit");
  };
  const freshAnswer = (url: RequestUrl, ifNoneMatch: string | undefined) => {
    const seen = options.version.recent();
    return typeof seen === "object" ? seen.then((at) => freshAnswerAt(at, url, ifNoneMatch)) : freshAnswerAt(seen, url, ifNoneMatch);
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
    const url = requestUrl(c);
    const ifNoneMatch = requestHeader(c, "if-none-match");

    const fresh = freshEntry(url.host, url.target, seen);
    if (fresh) return answer(c, fresh, ifNoneMatch, "hit");
    const cached = entries.get(url.host, url.target);
    const key = `${url.host}${url.target}`;

    const flightKey = `${seen}\n${key}`;
    const shared = pending.get(flightKey);
    if (shared) {
      // someone computes the fresh answer: the entry being replaced may serve meanwhile
      if (cached && servableWhileRefreshing(cached, seen)) return answer(c, cached, ifNoneMatch, "stale");
      const entry = await shared;
      if (entry) return answer(c, entry, ifNoneMatch, "hit");
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
        const route = routeTemplate(c);
        const bodyText = smallBodyText(body);
        const kept: KeptBody = {
          blockHeaders: c.get("indexedBlockHeaders") ?? {},
          body,
          bodyText,
          contentType,
          etag,
          route,
          plainTarget: isPlainTarget(url.target),
        };
        entry = {
          url,
          body,
          bytes: body.byteLength + (bodyText?.length ?? 0),
          etag,
          answers: { hit: answersOf(kept, "hit"), stale: answersOf(kept, "stale") },
          storedAt: Date.now(),
          version: seen,
        };
        // computed from data at least as new as `seen`: keep it unless a newer version is known
        if (version === seen) store(entry);
        c.res = new Response(body, res);
        for (const [name, value] of Object.entries(okHeadersOf(body, contentType, etag, "miss"))) c.header(name, value);
      }
    } finally {
      settle(entry);
      pending.delete(flightKey);
      if (running.get(key) === flight) running.delete(key);
    }
  };

  return { middleware, freshAnswer, cacheable: options.cacheable, size: () => entries.size };
}

/**
 * JSON answers kept by key and read version, for reads the response cache does not see (a
 * caller's own data behind its credentials): `get` answers the body computed at `version`, or
 * computes it once for every concurrent caller of that key and version (single flight). Bounded
 * like the response cache (oldest dropped first); an answer of another version is never served.
 */
export interface VersionedBodies {
  get(key: string, version: string, compute: () => Promise<unknown>): Promise<Uint8Array>;
  size(): number;
}

export function createVersionedBodies({ maxEntries = 1_000, maxBytes = 64 * 2 ** 20 } = {}): VersionedBodies {
  const entries = new Map<string, { version: string; body: Uint8Array }>();
  const pending = new Map<string, Promise<Uint8Array>>();
  let bytes = 0;
  const encoder = new TextEncoder();

  const store = (key: string, version: string, body: Uint8Array) => {
    const old = entries.get(key);
    if (old) {
      bytes -= old.body.byteLength;
      entries.delete(key);
    }
    if (body.byteLength > maxBytes / 4) return;
    entries.set(key, { version, body });
    bytes += body.byteLength;
    for (const [k, e] of entries) {
      if (entries.size <= maxEntries && bytes <= maxBytes) break;
      entries.delete(k);
      bytes -= e.body.byteLength;
    }
  };

  return {
    get(key, version, compute) {
      const cached = entries.get(key);
      if (cached?.version === version) return Promise.resolve(cached.body);
      const flightKey = `${version}\n${key}`;
      let flight = pending.get(flightKey);
      if (!flight) {
        flight = compute()
          .then((value) => {
            const body = encoder.encode(JSON.stringify(value));
            store(key, version, body);
            return body;
          })
          .finally(() => pending.delete(flightKey));
        pending.set(flightKey, flight);
      }
      return flight;
    },
    size: () => entries.size,
  };
}
