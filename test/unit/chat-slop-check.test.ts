import { describe, expect, it } from "vitest";
import { heuristicSlopCheck } from "../../api/chat/services/slop-check";
import { builtinMetadata, categorize, clip } from "../../api/chat/services/post-metadata";

describe("heuristic slop check", () => {
  it.each([
    "New paper: sparse attention cuts inference cost by 40% on long documents, with code and data released.",
    "Our city council voted to publish every budget line as open data. Here is what changes for journalists.",
    "Short but real: rates held steady today.",
  ])("passes real content: %s", (text) => {
    expect(heuristicSlopCheck(text)).toEqual({ pass: true, reason: "ok", method: "heuristic" });
  });

  it.each([
    ["", /no text/],
    ["   \n ", /no text/],
    ["https://t.co/abc https://example.org/x", /only links/],
    ["@alice @bob #ai #data", /only links/],
    ["gm", /too short/],
    ["wow!!!!!!!!!!!! amazing stuff here", /repeated characters/],
    ["aaaa bbbb aaaa bbbb aaaa bbbb", /repeated/],
    ["moon moon moon moon moon now", /one repeated word/],
    ["Claim your free airdrop now before it ends", /spam pattern \(free airdrop/],
    ["Huge airdrop live, connect your wallet to check eligibility", /spam pattern/],
    ["DM me for the signals group, serious people only", /DM me/],
    ["Follow for follow, let's grow together friends", /follow-for-follow/],
    ["GIVEAWAY! Retweet and follow to win a new phone", /giveaway/],
    ["This is the next 100x gem, buy before the pump", /pump promise/],
    ["Guaranteed returns every month with my strategy", /guaranteed returns/],
    ["Earn $500 per day from home with this method", /earn-per-day/],
    ["Everything you need is at the link in bio today", /link-in-bio/],
  ])("fails %j", (text, reason) => {
    const verdict = heuristicSlopCheck(text);
    expect(verdict.pass).toBe(false);
    expect(verdict.reason).toMatch(reason);
  });
});

describe("built-in pod metadata", () => {
  const post = (text: string) => ({ statusId: "123", url: "u", text, authorName: "Alice", authorHandle: "alice" });

  it("takes the first sentence as the title, within 80 characters", () => {
    const meta = builtinMetadata(post("Open datasets matter. They let anyone check a claim and build on it. https://t.co/x"));
    expect(meta.title).toBe("Open datasets matter.");
    expect(meta.description).toBe("Open datasets matter. They let anyone check a claim and build on it.");
  });

  it("keeps titles within 80 and descriptions within 10 to 200 characters", () => {
    const long = "word ".repeat(200);
    const meta = builtinMetadata(post(long));
    expect(meta.title.length).toBeLessThanOrEqual(80);
    expect(meta.description.length).toBeLessThanOrEqual(200);
    const short = builtinMetadata(post("Hi all"));
    expect(short.description.length).toBeGreaterThanOrEqual(10);
    expect(short.description).toContain("@alice");
  });

  it("uses the caller's title when given", () => {
    expect(builtinMetadata(post("Some text about things."), "My title").title).toBe("My title");
  });

  it("picks a category from keywords, General when none fits", () => {
    expect(categorize("A new LLM dataset for training agents")).toBe("AI");
    expect(categorize("Ethereum rollups and on-chain staking")).toBe("Crypto");
    expect(categorize("Lunch was nice")).toBe("General");
  });

  it("clips at a word boundary with an ellipsis", () => {
    expect(clip("alpha beta gamma delta", 12)).toBe("alpha beta…");
    expect(clip("short", 12)).toBe("short");
  });
});
