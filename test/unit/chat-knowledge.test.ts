import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { compose } from "../../api/chat/services/assistant/composer";
import { KnowledgeBase, splitMarkdown } from "../../api/chat/services/assistant/knowledge";
import { liveRecords } from "../../api/chat/services/assistant/live-state";

describe("markdown passages", () => {
  it("splits by heading with the heading path as section", () => {
    const passages = splitMarkdown(
      "docs/x.md",
      "# Guide\n\nIntro text.\n\n## Epochs\n\nAn epoch is a voting period.\n\n### Length\n\n48 hours.\n\n```\n# not a heading\n```\n",
    );
    expect(passages.map((p) => [p.title, p.section])).toEqual([
      ["Guide", "Guide"],
      ["Guide", "Epochs"],
      ["Guide", "Epochs › Length"],
    ]);
    expect(passages[2]!.text).toContain("# not a heading");
  });
});

describe("knowledge base", () => {
  it("indexes docs/*.md and the spec, works without the spec, and picks up new files", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "chat-docs-"));
    fs.writeFileSync(path.join(dir, "voting.md"), "# Voting\n\n## Vote budget\n\nEach epoch a voter may spend votes up to their voting power.\n");
    const withoutSpec = new KnowledgeBase({ docsDir: dir, specFile: path.join(dir, "missing-spec.md") });
    const [hit] = withoutSpec.search("how many votes can a voter spend?");
    expect(hit).toMatchObject({ source: "docs/voting.md", title: "Voting", section: "Vote budget" });

    const empty = new KnowledgeBase({ docsDir: path.join(dir, "nope") });
    expect(empty.size()).toBe(0);
    expect(empty.search("anything")).toEqual([]);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});

describe("built-in composer", () => {
  const live = {
    stats: {
      epochLengthSeconds: 172_800,
      currentEpoch: 4,
      currentEpochEndsAt: "2026-01-01T00:00:00.000Z",
      totalPods: 4,
      totalActiveSubnets: 3,
      subnetCreationFeeCORE: "100",
    },
  };

  it("answers the epoch length from live stats", () => {
    const out = compose({ mode: "rag", message: "How long is an epoch?", passages: [], live, liveHits: [] });
    expect(out.response).toContain("**48 hours**");
    expect(out.response).toContain("172800");
    expect(out.used[0]).toMatchObject({ source: "live:stats", section: "epochLengthSeconds" });
  });

  it("gives the wallet's claimable total in emissions mode", () => {
    const out = compose({
      mode: "emissions",
      message: "What can I claim?",
      passages: [],
      live: {
        ...live,
        pods: ["1", "2"],
        emissions: {
          totalCORE: 1_500_000_000_000_000_000n,
          totalPrimary: 0n,
          pods: [
            { podId: "1", claimableCORE: 1_500_000_000_000_000_000n, claimablePrimary: 0n, dueEpochs: ["2", "3"], moreEpochsAvailable: false },
            { podId: "2", claimableCORE: 0n, claimablePrimary: 0n, dueEpochs: [], moreEpochsAvailable: false },
          ],
        },
      },
      liveHits: [],
    });
    expect(out.response).toContain("You can claim **1.5 CORE**");
    expect(out.response).toContain("POST /pods/1/emissions/claim");
  });

  it("validates post URLs in minting mode", () => {
    const out = compose({
      mode: "minting",
      message: "mint https://x.com/alice/status/42 and https://example.org/post/1",
      passages: [],
      live: {},
      liveHits: [],
    });
    expect(out.response).toContain("is a valid post URL (post 42 by @alice)");
    expect(out.response).toContain("cannot be minted: tweetUrl must be an x.com or twitter.com post URL");
  });

  it("turns live state into searchable records", () => {
    const records = liveRecords(live);
    expect(records.map((r) => r.source)).toEqual(["live:stats", "live:stats"]);
    expect(records[0]!.text).toContain("48 hours");
  });
});

describe("built-in composer edge cases", () => {
  it("says the wallet owns no pods instead of a zero-pod total", () => {
    const out = compose({
      mode: "emissions",
      message: "What can I claim?",
      passages: [],
      live: { pods: [], emissions: { totalCORE: 0n, totalPrimary: 0n, pods: [] } },
      liveHits: [],
    });
    expect(out.response).toContain("Your wallet owns no pods yet");
  });

  it("quotes table passages as plain rows", () => {
    const out = compose({
      mode: "rag",
      message: "limits",
      passages: [{ id: "a", source: "spec.md", title: "Spec", section: "8. Limits", text: "| Limit | Value |\n|---|---|\n| Chat message length | max 4000 characters |", score: 1 }],
      live: {},
      liveHits: [],
    });
    expect(out.response).toContain("Limit, Value; Chat message length, max 4000 characters;");
  });
});
