import { describe, expect, it } from "vitest";
import { findPostUrls, parsePostUrl } from "../../api/chat/services/post-url";

describe("parsePostUrl", () => {
  it.each([
    ["https://x.com/alice/status/1790000000000000000", "https://x.com/alice/status/1790000000000000000", "alice"],
    ["https://twitter.com/Bob_1/status/123", "https://x.com/Bob_1/status/123", "Bob_1"],
    ["http://www.twitter.com/bob/status/123?s=20&t=abc", "https://x.com/bob/status/123", "bob"],
    ["https://mobile.x.com/bob/status/123/", "https://x.com/bob/status/123", "bob"],
    ["https://x.com/bob/status/123/photo/1", "https://x.com/bob/status/123", "bob"],
    ["https://X.COM/bob/status/123#frag", "https://x.com/bob/status/123", "bob"],
    ["https://x.com/i/web/status/123", "https://x.com/i/status/123", null],
    ["https://x.com/i/status/123", "https://x.com/i/status/123", null],
    ["  https://x.com/bob/statuses/123  ", "https://x.com/bob/status/123", "bob"],
  ])("accepts %s", (input, canonical, username) => {
    const result = parsePostUrl(input);
    expect(result.ok).toBe(true);
    if (result.ok) {
      expect(result.post.canonicalUrl).toBe(canonical);
      expect(result.post.username).toBe(username);
      expect(result.post.statusId).toBe(canonical.split("/").at(-1));
    }
  });

  it.each([
    ["", /empty/],
    ["not a url", /not a URL/],
    ["ftp://x.com/bob/status/1", /http/],
    ["https://example.com/bob/status/1", /x\.com or twitter\.com/],
    ["https://x.com.evil.example/bob/status/1", /x\.com or twitter\.com/],
    ["https://evilx.com/bob/status/1", /x\.com or twitter\.com/],
    ["https://x.com:8443/bob/status/1", /port/],
    ["https://user:pw@x.com/bob/status/1", /credentials/],
    ["https://x.com/bob", /post/],
    ["https://x.com/bob/status/", /post/],
    ["https://x.com/bob/status/abc", /post/],
    ["https://x.com/bob/status/0", /post/],
    ["https://x.com/bob/status/123/likes", /post/],
    ["https://x.com/this_handle_is_too_long/status/1", /handle/],
    ["https://x.com/bo-b/status/1", /handle/],
    [`https://x.com/bob/status/${"1".repeat(21)}`, /post/],
    [`https://x.com/${"a".repeat(3000)}`, /too long/],
  ])("rejects %j", (input, reason) => {
    const result = parsePostUrl(input);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).toMatch(reason);
  });
});

describe("findPostUrls", () => {
  it("finds URLs in free text without trailing punctuation", () => {
    expect(findPostUrls("mint https://x.com/a/status/1, and http://twitter.com/b/status/2.")).toEqual([
      "https://x.com/a/status/1",
      "http://twitter.com/b/status/2",
    ]);
  });
});
