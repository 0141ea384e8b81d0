/** Hosts whose status URLs `POST /pods/mint` accepts (after dropping `www.` / `mobile.`). */
export const POST_HOSTS = new Set(["x.com", "twitter.com"]);

export interface PostUrl {
  /** The status id, digits only. */
  statusId: string;
  /** The author's handle from the URL, or null for `/i/status/{id}` links. */
  username: string | null;
  /** `https://x.com/{user}/status/{id}`: no query, fragment, media suffix or alternative host. */
  canonicalUrl: string;
}

export type PostUrlResult = { ok: true; post: PostUrl } | { ok: false; reason: string };

const MAX_URL_LENGTH = 2048;
const HANDLE = /^[A-Za-z0-9_]{1,15}$/;
const STATUS_ID = /^\d{1,20}$/;

/**
 * Validates a social-post URL: http(s), host x.com or twitter.com (optionally www./mobile.),
 * no port or credentials, path `/{handle}/status/{id}` (optionally followed by `/photo/n`,
 * `/video/n` or `/analytics`), `/i/status/{id}` or `/i/web/status/{id}`. Pure.
 */
export function parsePostUrl(input: string): PostUrlResult {
  const text = input.trim();
  if (text.length === 0) return { ok: false, reason: "tweetUrl is empty" };
  if (text.length > MAX_URL_LENGTH) return { ok: false, reason: "tweetUrl is too long" };
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { ok: false, reason: "tweetUrl is not a URL" };
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    return { ok: false, reason: "tweetUrl must be an http(s) URL" };
  }
  if (url.username || url.password || url.port) {
    return { ok: false, reason: "tweetUrl must not carry credentials or a port" };
  }
  const host = url.hostname.toLowerCase().replace(/^(www|mobile)\./, "");
  if (!POST_HOSTS.has(host)) return { ok: false, reason: "tweetUrl must be an x.com or twitter.com post URL" };

  const segments = url.pathname.split("/").filter(Boolean);
  let username: string | null = null;
  let statusId: string | undefined;
  let rest: string[] = [];
  if (segments[0] === "i" && segments[1] === "web" && segments[2] === "status") {
    statusId = segments[3];
    rest = segments.slice(4);
  } else if (segments[0] === "i" && segments[1] === "status") {
    statusId = segments[2];
    rest = segments.slice(3);
  } else if (segments[1] === "status" || segments[1] === "statuses") {
    username = segments[0] ?? null;
    statusId = segments[2];
    rest = segments.slice(3);
    if (!username || !HANDLE.test(username) || username.toLowerCase() === "i") {
      return { ok: false, reason: "tweetUrl has no valid account handle" };
    }
  }
  if (!statusId || !STATUS_ID.test(statusId) || /^0+$/.test(statusId)) {
    return { ok: false, reason: "tweetUrl must point to a post (…/status/{id})" };
  }
  const suffixOk =
    rest.length === 0 ||
    (rest.length === 2 && (rest[0] === "photo" || rest[0] === "video") && /^\d{1,2}$/.test(rest[1]!)) ||
    (rest.length === 1 && rest[0] === "analytics");
  if (!suffixOk) return { ok: false, reason: "tweetUrl must point to a post (…/status/{id})" };

  const canonicalUrl = username ? `https://x.com/${username}/status/${statusId}` : `https://x.com/i/status/${statusId}`;
  return { ok: true, post: { statusId, username, canonicalUrl } };
}

/** Finds post URLs in free text (for the assistant's minting mode). */
export function findPostUrls(text: string): string[] {
  return [...text.matchAll(/\bhttps?:\/\/[^\s<>()"'`]+/gi)].map((m) => m[0].replace(/[.,;:!?]+$/, ""));
}
