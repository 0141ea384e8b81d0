import { describe, expect, it } from "vitest";
import { pickCriteria } from "../../api/eval/criteria";
import {
  agreement,
  decisionFor,
  dispersionFor,
  distinctCriteria,
  judge,
  median,
  mentions,
  routeFor,
  weightedMedian,
  type HumanJudgment,
  type JudgeInput,
  type PeerJudgment,
  type SettledVerdict,
} from "../../api/eval/settlement/judge";
import { parseAnswer } from "../../api/eval/settlement/llm-judge";

const judgedAt = new Date("2030-01-01T00:15:00.000Z");

const peer = (score: number, overrides: Partial<PeerJudgment> = {}): PeerJudgment => ({
  id: `p-${score}-${overrides.agentName ?? "a"}`,
  agentName: "agent",
  modelName: "model",
  score,
  decision: decisionFor(score),
  critique: "Fine overall.",
  ...overrides,
});

const human = (score: number, overrides: Partial<HumanJudgment> = {}): HumanJudgment => ({
  id: `h-${score}`,
  reviewerId: "r1",
  reviewerName: "Reviewer",
  score,
  decision: decisionFor(score),
  critique: "Human view.",
  ...overrides,
});

const input = (overrides: Partial<JudgeInput> = {}): JudgeInput => ({
  criteria: ["Correctness", "Clarity"],
  criteriaSource: "caller",
  peers: [],
  humans: [],
  judgedAt,
  ...overrides,
});

function settled(result: ReturnType<typeof judge>): SettledVerdict {
  if (result.status !== "SETTLED") throw new Error(`expected SETTLED, got ${JSON.stringify(result)}`);
  return result.verdict;
}

describe("medians", () => {
  it("takes the middle value, or the mean of the two middle ones", () => {
    expect(median([50])).toBe(50);
    expect(median([10, 90, 30])).toBe(30);
    expect(median([10, 20, 30, 40])).toBe(25);
  });

  it("counts each value by its weight", () => {
    expect(weightedMedian([{ value: 10, weight: 1 }, { value: 90, weight: 2 }])).toBe(90);
    expect(weightedMedian([{ value: 10, weight: 1 }, { value: 30, weight: 1 }, { value: 90, weight: 2 }])).toBe(60);
    expect(weightedMedian([{ value: 10, weight: 2 }, { value: 90, weight: 2 }])).toBe(50);
    expect(() => weightedMedian([])).toThrow();
  });
});

describe("bands, agreement, dispersion and route", () => {
  it("decides by score bands", () => {
    expect([100, 70, 69.9, 40, 39.9, 0].map(decisionFor)).toEqual(["accept", "accept", "revise", "revise", "reject", "reject"]);
  });

  it("computes agreement as 1 − mean pairwise difference / 90, null with one judge", () => {
    expect(agreement([80])).toBeNull();
    expect(agreement([80, 80])).toBe(1);
    expect(agreement([80, 71])).toBe(0.9);
    expect(agreement([0, 90])).toBe(0);
    expect(agreement([0, 100])).toBe(0); // clamped
    expect(agreement([60, 70, 80])).toBeCloseTo(1 - (10 + 20 + 10) / 3 / 90, 3);
  });

  it("bands dispersion at 0.85 and 0.6", () => {
    expect([1, 0.85, 0.849, 0.6, 0.599, null].map(dispersionFor)).toEqual(["low", "low", "medium", "medium", "high", null]);
  });

  it("routes auto-ship only with two accepting judges agreeing ≥ 0.8; block on reject", () => {
    expect(routeFor("accept", 2, 0.8)).toBe("auto-ship");
    expect(routeFor("accept", 1, 1)).toBe("review");
    expect(routeFor("accept", 3, 0.79)).toBe("review");
    expect(routeFor("accept", 2, null)).toBe("review");
    expect(routeFor("revise", 3, 1)).toBe("review");
    expect(routeFor("reject", 0, 1)).toBe("block");
  });
});

describe("judge", () => {
  it("fails with a reason when nobody judged and no judge is configured", () => {
    const result = judge(input());
    expect(result).toEqual({
      status: "FAILED",
      verdict: { reason: "No peer assessment was received before the window closed and no judge is configured" },
    });
  });

  it("fails with the judge's error when only the judge was asked and it could not answer", () => {
    const result = judge(input({ llm: { status: "denied", model: "m", error: "the judge timed out" } }));
    expect(result.status).toBe("FAILED");
    expect(result.verdict).toEqual({ reason: expect.stringContaining("the judge timed out") });
  });

  it("gives every criterion the median of the peers' overall scores", () => {
    const verdict = settled(judge(input({ peers: [peer(90), peer(70, { agentName: "b" }), peer(20, { agentName: "c" })] })));
    expect(verdict.criteria.map((c) => [c.criterion, c.score, c.judges])).toEqual([
      ["Correctness", 70, 3],
      ["Clarity", 70, 3],
    ]);
    expect(verdict.score).toBe(70);
    expect(verdict.decision).toBe("accept");
    expect(verdict.quorum).toEqual({ served: 3, denied: 0 });
    expect(verdict.agreement).toBeCloseTo(1 - (20 + 70 + 50) / 3 / 90, 3);
    expect(verdict.dispersion).toBe("high");
    expect(verdict.route).toBe("review");
    expect(verdict.summary).toBeNull();
    expect(verdict.provenance).toMatchObject({
      method: "weighted-median-v1",
      weights: { peer: 1, human: 2, llm: 1 },
      criteriaSource: "caller",
      judgedAt: judgedAt.toISOString(),
      attachment: null,
    });
    expect(verdict.provenance.judges.map((j) => j.kind)).toEqual(["peer", "peer", "peer"]);
  });

  it("auto-ships a unanimous acceptance and blocks a rejection", () => {
    const ship = settled(judge(input({ peers: [peer(85), peer(80, { agentName: "b" })] })));
    expect([ship.score, ship.decision, ship.agreement, ship.dispersion, ship.route]).toEqual([82.5, "accept", 0.944, "low", "auto-ship"]);
    const block = settled(judge(input({ peers: [peer(10), peer(30, { agentName: "b" })] })));
    expect([block.decision, block.route]).toEqual(["reject", "block"]);
    const single = settled(judge(input({ peers: [peer(95)] })));
    expect([single.agreement, single.dispersion, single.route]).toEqual([null, null, "review"]);
  });

  it("weighs a human review twice as much as a peer assessment", () => {
    // Values 20 (peer), 30 (peer), 90 (human ×2): the weighted median is 60; unweighted it would be 30.
    const verdict = settled(judge(input({ peers: [peer(20), peer(30, { agentName: "b" })], humans: [human(90)] })));
    expect(verdict.score).toBe(60);
    expect(verdict.quorum).toEqual({ served: 3, denied: 0 });
    expect(verdict.provenance.judges.find((j) => j.kind === "human")).toMatchObject({ weight: 2, reviewerName: "Reviewer" });
  });

  it("scores per criterion when the LLM judge answers, beside the peers", () => {
    const verdict = settled(
      judge(
        input({
          peers: [peer(80)],
          llm: {
            status: "served",
            model: "judge-1",
            decision: "revise",
            summary: "Mostly right.",
            criteria: [
              { criterion: "correctness", score: 90, critique: "Facts check out." },
              { criterion: "Clarity", score: 40, critique: "Hard to follow." },
            ],
          },
        }),
      ),
    );
    expect(verdict.criteria.map((c) => [c.criterion, c.score])).toEqual([
      ["Correctness", 85],
      ["Clarity", 60],
    ]);
    expect(verdict.score).toBe(72.5);
    expect(verdict.summary).toBe("Mostly right.");
    expect(verdict.criteria[0]!.critiques).toEqual([
      { source: "llm", by: "judge-1", text: "Facts check out." },
      { source: "peer", by: "agent (model)", text: "Fine overall." },
    ]);
    expect(verdict.quorum).toEqual({ served: 2, denied: 0 });
    expect(verdict.agreement).toBe(0.833); // 80 vs the judge's own mean 65: 1 − 15/90
    expect(verdict.provenance.judges.at(-1)).toEqual({
      kind: "llm",
      model: "judge-1",
      status: "served",
      score: 65,
      decision: "revise",
      weight: 1,
    });
  });

  it("maps the LLM's criteria by position when names differ, and counts a denied judge in the quorum", () => {
    const positional = settled(
      judge(
        input({
          llm: {
            status: "served",
            model: "j",
            decision: "accept",
            summary: "",
            criteria: [
              { criterion: "1", score: 100, critique: "" },
              { criterion: "2", score: 50, critique: "" },
            ],
          },
        }),
      ),
    );
    expect(positional.criteria.map((c) => c.score)).toEqual([100, 50]);

    const denied = settled(judge(input({ peers: [peer(75)], llm: { status: "denied", model: "j", error: "the judge timed out" } })));
    expect(denied.quorum).toEqual({ served: 1, denied: 1 });
    expect(denied.provenance.judges.at(-1)).toEqual({ kind: "llm", model: "j", status: "denied", error: "the judge timed out" });
  });

  it("files critiques under the criteria they name, and general ones under every criterion", () => {
    const verdict = settled(
      judge(
        input({
          criteria: ["Correctness", "Clarity of the explanation", "Use of sources"],
          peers: [
            peer(80, { agentName: "a", critique: "Correctness is fine but no use of sources." }),
            peer(70, { agentName: "b", critique: "Good job." }),
          ],
        }),
      ),
    );
    const texts = (i: number) => verdict.criteria[i]!.critiques.map((c) => c.text);
    expect(texts(0)).toEqual(["Correctness is fine but no use of sources.", "Good job."]);
    expect(texts(1)).toEqual(["Good job."]);
    expect(texts(2)).toEqual(["Correctness is fine but no use of sources.", "Good job."]);
  });

  it("treats repeated criteria once and keeps scores within 0–100", () => {
    expect(distinctCriteria(["Clarity", " clarity ", "Depth", ""])).toEqual(["Clarity", "Depth"]);
    const verdict = settled(judge(input({ criteria: ["Clarity", "clarity"], peers: [peer(100)] })));
    expect(verdict.criteria).toHaveLength(1);
    expect(mentions("The CLARITY is poor", "Clarity")).toBe(true);
    expect(mentions("unrelated", "Clarity")).toBe(false);
  });

  it("is deterministic", () => {
    const args = input({ peers: [peer(55), peer(65, { agentName: "b" })], humans: [human(40)] });
    expect(judge(args)).toEqual(judge(args));
  });
});

describe("pickCriteria", () => {
  it("always picks 2 to 5 distinct dimensions, deterministically", () => {
    const payloads = ["", "x", "a".repeat(1000), "image design layout chart diagram password secret http:// ``` function class"];
    for (const type of ["answer", "plan", "trace", "artifact"] as const) {
      for (const payload of payloads) {
        const picked = pickCriteria({ type, payload });
        expect(picked.length).toBeGreaterThanOrEqual(2);
        expect(picked.length).toBeLessThanOrEqual(5);
        expect(new Set(picked).size).toBe(picked.length);
        expect(pickCriteria({ type, payload })).toEqual(picked);
      }
    }
  });

  it("follows the type and the payload's keywords", () => {
    expect(pickCriteria({ type: "answer", payload: "Paris." })).toEqual(["Correctness", "Completeness", "Clarity"]);
    expect(pickCriteria({ type: "plan", payload: "Week 1 milestone, budget, rollback on failure risk" })).toContain("Risk handling");
    expect(pickCriteria({ type: "artifact", payload: "```js\nfunction f() { return 1 }\n```" })).toContain("Code quality");
    expect(pickCriteria({ type: "artifact", payload: "My poster", attachmentContentType: "image/png" })).toContain("Visual quality");
  });
});

describe("parseAnswer (LLM judge output)", () => {
  it("reads a JSON answer, also inside code fences", () => {
    const answer = '```json\n{"criteria":[{"criterion":"Clarity","score":"77","critique":"ok"}],"decision":"accept","summary":"Good"}\n```';
    expect(parseAnswer(answer, "m")).toEqual({
      status: "served",
      model: "m",
      criteria: [{ criterion: "Clarity", score: 77, critique: "ok" }],
      decision: "accept",
      summary: "Good",
    });
  });

  it("derives the decision from the scores when missing, and denies malformed answers", () => {
    const served = parseAnswer('{"criteria":[{"criterion":"A","score":30}]}', "m");
    expect(served).toMatchObject({ status: "served", decision: "reject" });
    expect(parseAnswer("no json here", "m")).toMatchObject({ status: "denied" });
    expect(parseAnswer("{not json}", "m")).toMatchObject({ status: "denied" });
    expect(parseAnswer('{"criteria":[]}', "m")).toMatchObject({ status: "denied" });
    expect(parseAnswer('{"criteria":[{"criterion":"A","score":300}]}', "m")).toMatchObject({ status: "denied" });
  });
});
