import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PostSourceConfig } from "../../api/chat/config";
import { createPostFetcher } from "../../api/chat/services/post-fetcher";
import { parsePostUrl, type PostUrl } from "../../api/chat/services/post-url";
import { HttpError } from "../../api/http/errors";
import { startFakePostSource, UNREACHABLE_URL, type FakePost } from "./support";

let source: Awaited<ReturnType<typeof startFakePostSource>>;
const posts = new Map<string, FakePost>([
  ["101", { text: "Open data & curation <3\nSecond line", authorName: "Alice A.", handle: "alice" }],
]);

beforeAll(async () => {
  source = await startFakePostSource(posts);
});
afterAll(async () => {
  await source?.close();
});

function post(id: string, handle = "alice"): PostUrl {
  const parsed = parsePostUrl(`https://x.com/${handle}/status/${id}`);
  if (!parsed.ok) throw new Error(parsed.reason);
  return parsed.post;
}

function config(overrides: Partial<PostSourceConfig> = {}): PostSourceConfig {
  return {
    kind: "oembed",
    oembedUrl: `${source.url}/oembed`,
    xApiUrl: `${source.url}/2`,
    xBearerToken: source.bearer,
    timeoutMs: 10_000, // generous: the fake source answers at once; the timeout test sets its own
    maxBytes: 64 * 1024,
    ...overrides,
  };
}

async function failure(promise: Promise<unknown>): Promise<{ status: number; message: string }> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(HttpError);
    return { status: (error as HttpError).status, message: (error as HttpError).message };
  }
  throw new Error("expected a failure");
}

describe("oEmbed fetcher", () => {
  it("returns the post's text (entities decoded, line breaks kept) and author", async () => {
    const fetched = await createPostFetcher(config()).fetchPost(post("101"));
    expect(fetched).toEqual({
      statusId: "101",
      url: "https://x.com/alice/status/101",
      text: "Open data & curation <3\nSecond line",
      authorName: "Alice A.",
      authorHandle: "alice",
    });
    const request = source.requests.at(-1)!;
    expect(new URL(request.url, source.url).searchParams.get("url")).toBe("https://x.com/alice/status/101");
  });

  it("answers 400 for a post the source does not know", async () => {
    expect(await failure(createPostFetcher(config()).fetchPost(post("999")))).toEqual({
      status: 400,
      message: "Post not found or not public",
    });
  });

  it("gives up after the timeout with 502", async () => {
    const started = Date.now();
    expect(await failure(createPostFetcher(config({ timeoutMs: 300 })).fetchPost(post("5550001")))).toEqual({
      status: 502,
      message: "Could not fetch the post",
    });
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it("refuses answers over the size cap with 502", async () => {
    expect((await failure(createPostFetcher(config({ maxBytes: 10_000 })).fetchPost(post("5550002")))).status).toBe(502);
  });

  it("refuses a redirect to another host with 502 and follows one on the same host", async () => {
    expect((await failure(createPostFetcher(config()).fetchPost(post("5550003")))).status).toBe(502);
    const redirected = await createPostFetcher(config()).fetchPost(post("5550004"));
    expect(redirected.text).toContain("redirected post");
  });

  it("answers 502 for an upstream error or an unreachable upstream", async () => {
    expect((await failure(createPostFetcher(config()).fetchPost(post("5550005")))).status).toBe(502);
    expect((await failure(createPostFetcher(config({ oembedUrl: `${UNREACHABLE_URL}/oembed` })).fetchPost(post("101")))).status).toBe(502);
  });
});

describe("X API fetcher", () => {
  it("sends the bearer token and returns the post", async () => {
    const fetched = await createPostFetcher(config({ kind: "x-api" })).fetchPost(post("101"));
    expect(fetched.text).toBe("Open data & curation <3\nSecond line");
    expect(fetched.authorHandle).toBe("alice");
    const request = source.requests.at(-1)!;
    expect(request.url.startsWith("/2/tweets/101?")).toBe(true);
    expect(request.headers.authorization).toBe(`Bearer ${source.bearer}`);
  });

  it("answers 400 for an unknown post and 502 when the token is refused", async () => {
    expect((await failure(createPostFetcher(config({ kind: "x-api" })).fetchPost(post("999")))).status).toBe(400);
    expect((await failure(createPostFetcher(config({ kind: "x-api", xBearerToken: "wrong" })).fetchPost(post("101")))).status).toBe(502);
  });
});
