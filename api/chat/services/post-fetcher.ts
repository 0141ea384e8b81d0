import type { Logger } from "pino";
import { HttpError } from "../../http/errors";
import type { PostSourceConfig } from "../config";
import type { PostUrl } from "./post-url";

/** The text of a social post and who wrote it, as the configured source returned it. */
export interface FetchedPost {
  statusId: string;
  url: string;
  text: string;
  authorName: string | null;
  authorHandle: string | null;
}

export interface PostFetcher {
  fetchPost(post: PostUrl): Promise<FetchedPost>;
}

/** The upstream could not be used (down, timed out, too large, redirected elsewhere, unexpected answer). */
export const postUnavailable = () => new HttpError(502, "Could not fetch the post");
/** The upstream answered that the post does not exist or is not public. */
export const postNotFound = () => new HttpError(400, "Post not found or not public");

const MAX_REDIRECTS = 3;

class UpstreamError extends Error {}

interface SafeResponse {
  status: number;
  body: string;
}

/**
 * GET with a deadline, a byte cap and manual redirects that may only stay on the endpoint's
 * own host (scheme, host and port). The caller's URL is never requested: only the configured
 * endpoint is, so a post URL cannot aim the server at another address (no SSRF).
 */
export async function safeGet(
  url: URL,
  options: { headers?: Record<string, string>; timeoutMs: number; maxBytes: number },
): Promise<SafeResponse> {
  const signal = AbortSignal.timeout(options.timeoutMs);
  let current = url;
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    let response: Response;
    try {
      response = await fetch(current, {
        method: "GET",
        headers: { accept: "application/json", ...options.headers },
        redirect: "manual",
        signal,
      });
    } catch (error) {
      throw new UpstreamError(`request failed: ${(error as Error).message}`);
    }
    if (response.status >= 300 && response.status < 400) {
      await response.body?.cancel().catch(() => undefined);
      const location = response.headers.get("location");
      if (!location) throw new UpstreamError(`redirect ${response.status} without a location`);
      const next = new URL(location, current);
      if (next.origin !== url.origin) throw new UpstreamError(`redirect to another host refused (${next.host})`);
      current = next;
      continue;
    }
    const declared = Number(response.headers.get("content-length"));
    if (Number.isFinite(declared) && declared > options.maxBytes) {
      await response.body?.cancel().catch(() => undefined);
      throw new UpstreamError(`response of ${declared} bytes is over the ${options.maxBytes}-byte cap`);
    }
    return { status: response.status, body: await readCapped(response, options.maxBytes, signal) };
  }
  throw new UpstreamError("too many redirects");
}

async function readCapped(response: Response, maxBytes: number, signal: AbortSignal): Promise<string> {
  if (!response.body) return "";
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      if (signal.aborted) throw new UpstreamError("timed out while reading");
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) throw new UpstreamError(`response is over the ${maxBytes}-byte cap`);
      chunks.push(value);
    }
  } catch (error) {
    await reader.cancel().catch(() => undefined);
    if (error instanceof UpstreamError) throw error;
    throw new UpstreamError(`reading failed: ${(error as Error).message}`);
  }
  return Buffer.concat(chunks).toString("utf8");
}

const ENTITIES: Record<string, string> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  nbsp: " ",
  mdash: "—",
  ndash: "–",
  hellip: "…",
  rsquo: "’",
  lsquo: "‘",
  rdquo: "”",
  ldquo: "“",
};

export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, code: string) => {
    if (code[0] === "#") {
      const point = code[1] === "x" || code[1] === "X" ? parseInt(code.slice(2), 16) : parseInt(code.slice(1), 10);
      return Number.isFinite(point) && point > 0 && point <= 0x10ffff ? String.fromCodePoint(point) : whole;
    }
    return ENTITIES[code.toLowerCase()] ?? whole;
  });
}

/** The post's text from oEmbed's `html` (the first `<p>` of the embed blockquote). */
export function textFromEmbedHtml(html: string): string {
  const paragraph = /<p\b[^>]*>([\s\S]*?)<\/p>/i.exec(html)?.[1] ?? "";
  const text = paragraph
    .replace(/<br\s*\/?>/gi, "\n")
    .replace(/<[^>]+>/g, "")
    .replace(/[ \t]+/g, " ");
  return decodeEntities(text).trim();
}

function parseJson(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    throw new UpstreamError("answer is not JSON");
  }
}

/** Twitter/X's public oEmbed endpoint (or any compatible one): no credentials needed. */
export function createOembedFetcher(config: PostSourceConfig, logger?: Logger): PostFetcher {
  return {
    async fetchPost(post) {
      const endpoint = new URL(config.oembedUrl);
      endpoint.searchParams.set("url", post.canonicalUrl);
      endpoint.searchParams.set("omit_script", "true");
      endpoint.searchParams.set("dnt", "true");
      try {
        const { status, body } = await safeGet(endpoint, { timeoutMs: config.timeoutMs, maxBytes: config.maxBytes });
        if (status === 404 || status === 403 || status === 410) throw postNotFound();
        if (status !== 200) throw new UpstreamError(`status ${status}`);
        const json = parseJson(body) as { html?: unknown; author_name?: unknown; author_url?: unknown };
        if (typeof json.html !== "string") throw new UpstreamError("answer has no html");
        const authorUrl = typeof json.author_url === "string" ? json.author_url : "";
        const handle = /\/([A-Za-z0-9_]{1,15})\/?$/.exec(authorUrl)?.[1] ?? post.username;
        return {
          statusId: post.statusId,
          url: post.canonicalUrl,
          text: textFromEmbedHtml(json.html),
          authorName: typeof json.author_name === "string" ? json.author_name : null,
          authorHandle: handle ?? null,
        };
      } catch (error) {
        if (error instanceof HttpError) throw error;
        logger?.warn({ err: error, source: "oembed" }, "post fetch failed");
        throw postUnavailable();
      }
    },
  };
}

/** The X API v2 (`GET /tweets/{id}`) with an app bearer token. */
export function createXApiFetcher(config: PostSourceConfig, logger?: Logger): PostFetcher {
  return {
    async fetchPost(post) {
      const endpoint = new URL(`${config.xApiUrl}/tweets/${post.statusId}`);
      endpoint.searchParams.set("expansions", "author_id");
      endpoint.searchParams.set("user.fields", "username,name");
      endpoint.searchParams.set("tweet.fields", "created_at,note_tweet");
      try {
        const { status, body } = await safeGet(endpoint, {
          headers: { authorization: `Bearer ${config.xBearerToken ?? ""}` },
          timeoutMs: config.timeoutMs,
          maxBytes: config.maxBytes,
        });
        if (status === 404) throw postNotFound();
        if (status !== 200) throw new UpstreamError(`status ${status}`);
        const json = parseJson(body) as {
          data?: { id?: unknown; text?: unknown; author_id?: unknown; note_tweet?: { text?: unknown } };
          includes?: { users?: { id?: unknown; name?: unknown; username?: unknown }[] };
          errors?: unknown[];
        };
        if (!json.data) {
          if (Array.isArray(json.errors) && json.errors.length > 0) throw postNotFound();
          throw new UpstreamError("answer has no data");
        }
        const longText = json.data.note_tweet?.text;
        const text = typeof longText === "string" ? longText : json.data.text;
        if (typeof text !== "string") throw new UpstreamError("answer has no text");
        const author = json.includes?.users?.find((u) => u.id === json.data?.author_id) ?? json.includes?.users?.[0];
        return {
          statusId: post.statusId,
          url: post.canonicalUrl,
          text: decodeEntities(text).trim(),
          authorName: typeof author?.name === "string" ? author.name : null,
          authorHandle: typeof author?.username === "string" ? author.username : post.username,
        };
      } catch (error) {
        if (error instanceof HttpError) throw error;
        logger?.warn({ err: error, source: "x-api" }, "post fetch failed");
        throw postUnavailable();
      }
    },
  };
}

export function createPostFetcher(config: PostSourceConfig, logger?: Logger): PostFetcher {
  return config.kind === "x-api" ? createXApiFetcher(config, logger) : createOembedFetcher(config, logger);
}
