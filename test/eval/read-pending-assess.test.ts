import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseReviewArgs, recordHumanReview } from "../../api/eval/operator";
import {
  assess,
  call,
  countRows,
  errorOf,
  newKey,
  startEvalHarness,
  submitOk,
  validAssessment,
  type EvalHarness,
} from "./support";

let h: EvalHarness;
let owner: string;
let peerA: string;
let peerB: string;

beforeAll(async () => {
  h = await startEvalHarness();
  owner = await newKey(h, "owner");
  peerA = await newKey(h, "peer-a");
  peerB = await newKey(h, "peer-b");
});

afterAll(async () => {
  await h?.close();
});

interface PendingBody {
  items: Record<string, unknown>[];
  pagination: { page: number; pageSize: number; total: number; totalPages: number };
}

async function pending(key: string, query = "") {
  const result = await call(h.app, "GET", `/agents/eval-requests/pending${query}`, { key });
  expect(result.status, JSON.stringify(result.body)).toBe(200);
  return result.body as unknown as PendingBody;
}

describe("GET /agents/eval-requests/{evalId}", () => {
  it("shows the owner every field of a pending evaluation", async () => {
    const { evalId } = await submitOk(h, owner, { context: "Asked by a geography quiz", settlementMinutes: 30 });
    const result = await call(h.app, "GET", `/agents/eval-requests/${evalId}`, { key: owner });
    expect(result.status).toBe(200);
    expect(result.body).toEqual({
      evalId,
      type: "answer",
      status: "PENDING",
      mode: "STANDARD",
      score: 0,
      createdAt: h.clock.now().toISOString(),
      settlementMinutes: 30,
      minSettleAt: new Date(h.clock.now().getTime() + 30 * 60_000).toISOString(),
      settledAt: null,
      payload: "The capital of France is Paris.",
      criteria: ["Correctness", "Clarity"],
      context: "Asked by a geography quiz",
      attachments: [],
      verdict: null,
      peerAssessmentCount: 0,
      peerContributors: [],
      peerAssessments: [],
      humanReviewCount: 0,
      humanReviews: [],
    });
  });

  it("is 404 for another account, for the internal id and for unknown ids", async () => {
    const { evalId, id } = await submitOk(h, owner);
    for (const [key, target] of [
      [peerA, evalId],
      [owner, id],
      [owner, "eval_ffffffffffffffffffffffff"],
      [owner, "%27%20OR%201%3D1"],
    ] as const) {
      const result = await call(h.app, "GET", `/agents/eval-requests/${target}`, { key });
      expect(result.status).toBe(404);
      expect(result.body).toEqual({ error: "Evaluation not found" });
    }
  });

  it("shows the owner full assessments, contributors, human reviews and their counts", async () => {
    const { evalId } = await submitOk(h, owner, { payload: "owner view" });
    await assess(h, peerA, evalId, { agentName: "alpha", modelName: "m-1", score: 90, critique: "Great." });
    h.clock.advance(1_000);
    await assess(h, peerB, evalId, { agentName: "beta", modelName: "m-2", score: 60, decision: "revise", critique: "Terse." });
    await recordHumanReview(
      h.store.db,
      parseReviewArgs([
        "--eval", evalId, "--reviewer-id", "rev-1", "--reviewer-name", "Dana", "--score", "75",
        "--decision", "accept", "--critique", "Correct, could cite a source.",
      ]),
      h.clock.now(),
    );

    const result = await call(h.app, "GET", `/agents/eval-requests/${evalId}`, { key: owner });
    expect(result.body.peerAssessmentCount).toBe(2);
    expect(result.body.peerContributors).toEqual([
      { agentName: "alpha", modelName: "m-1" },
      { agentName: "beta", modelName: "m-2" },
    ]);
    const assessments = result.body.peerAssessments as Record<string, unknown>[];
    expect(assessments.map((a) => Object.keys(a).sort())).toEqual([
      ["agentName", "createdAt", "critique", "decision", "id", "modelName", "score"],
      ["agentName", "createdAt", "critique", "decision", "id", "modelName", "score"],
    ]);
    expect(assessments[1]).toMatchObject({ agentName: "beta", score: 60, decision: "revise", critique: "Terse." });
    expect(result.body.humanReviewCount).toBe(1);
    expect(result.body.humanReviews).toEqual([
      {
        id: expect.any(String),
        reviewerId: "rev-1",
        reviewerName: "Dana",
        score: 75,
        decision: "accept",
        critique: "Correct, could cite a source.",
        createdAt: h.clock.now().toISOString(),
      },
    ]);
  });
});

describe("GET /agents/eval-requests/pending", () => {
  it("lists other accounts' open evaluations without the owner's identity", async () => {
    const { evalId, id } = await submitOk(h, owner, { payload: "listed", context: "ctx", criteria: ["Accuracy"] });
    const page = await pending(peerA, "?pageSize=100");
    const item = page.items.find((i) => i.evalId === evalId)!;
    expect(item).toEqual({
      id,
      evalId,
      type: "answer",
      payload: "listed",
      criteria: ["Accuracy"],
      context: "ctx",
      attachments: [],
      createdAt: h.clock.now().toISOString(),
      minSettleAt: new Date(h.clock.now().getTime() + 15 * 60_000).toISOString(),
      assessmentCount: 0,
    });
    const raw = JSON.stringify(page);
    const ownerAccount = await h.store.pool.query("SELECT account_id FROM offchain.evaluations WHERE eval_id = $1", [evalId]);
    expect(raw).not.toContain(ownerAccount.rows[0].account_id);
    expect(raw).not.toContain("\"owner\"");
  });

  it("excludes the caller's own, those it assessed, closed windows and settled ones", async () => {
    const own = await submitOk(h, peerA, { payload: "peer-a's own" });
    const assessed = await submitOk(h, owner, { payload: "assessed by peer-a" });
    const open = await submitOk(h, owner, { payload: "open for peer-a", settlementMinutes: 60 });
    const closing = await submitOk(h, owner, { payload: "closes soon", settlementMinutes: 10 });
    expect((await assess(h, peerA, assessed.evalId)).status).toBe(201);

    const ids = async (key: string) => (await pending(key, "?pageSize=100")).items.map((i) => i.evalId);
    const before = await ids(peerA);
    expect(before).not.toContain(own.evalId);
    expect(before).not.toContain(assessed.evalId);
    expect(before).toContain(open.evalId);
    expect(before).toContain(closing.evalId);
    // The same evaluations remain open for someone else.
    expect(await ids(peerB)).toEqual(expect.arrayContaining([own.evalId, assessed.evalId, open.evalId]));
    // The owner never sees their own.
    expect(await ids(owner)).not.toContain(open.evalId);

    const assessedItem = (await pending(peerB, "?pageSize=100")).items.find((i) => i.evalId === assessed.evalId)!;
    expect(assessedItem.assessmentCount).toBe(1);

    h.clock.advanceMinutes(10);
    const after = await ids(peerA);
    expect(after).not.toContain(closing.evalId);
    expect(after).toContain(open.evalId);

    await h.store.pool.query("UPDATE offchain.evaluations SET status = 'SETTLED' WHERE eval_id = $1", [open.evalId]);
    expect(await ids(peerA)).not.toContain(open.evalId);
  });

  it("pages with page (default 1) and pageSize (default 20, max 100), soonest closing first", async () => {
    const lister = await newKey(h, "lister");
    const submitter = await newKey(h, "bulk-submitter");
    h.clock.advanceMinutes(24 * 60 * 2); // everything earlier is closed now
    const created: string[] = [];
    for (let i = 0; i < 25; i++) {
      created.push((await submitOk(h, submitter, { payload: `bulk ${i}` })).evalId);
      h.clock.advance(1_000);
    }
    const first = await pending(lister);
    expect(first.pagination).toEqual({ page: 1, pageSize: 20, total: 25, totalPages: 2 });
    expect(first.items.map((i) => i.evalId)).toEqual(created.slice(0, 20));
    const second = await pending(lister, "?page=2");
    expect(second.pagination).toEqual({ page: 2, pageSize: 20, total: 25, totalPages: 2 });
    expect(second.items.map((i) => i.evalId)).toEqual(created.slice(20));
    const small = await pending(lister, "?page=3&pageSize=10");
    expect(small.pagination).toEqual({ page: 3, pageSize: 10, total: 25, totalPages: 3 });
    expect(small.items).toHaveLength(5);
    expect((await pending(lister, "?pageSize=100")).items).toHaveLength(25);
    expect((await pending(lister, "?page=99")).items).toEqual([]);

    for (const query of ["?page=0", "?page=-1", "?page=1.5", "?page=abc", "?pageSize=0", "?pageSize=101", "?pageSize=x"]) {
      const result = await call(h.app, "GET", `/agents/eval-requests/pending${query}`, { key: lister });
      expect(result.status, query).toBe(400);
      expect(errorOf(result)).toMatch(/^(page|pageSize): /);
    }
  });

  it("is empty with a zero total when nothing is open", async () => {
    h.clock.advanceMinutes(24 * 60 * 2);
    expect(await pending(peerB)).toEqual({ items: [], pagination: { page: 1, pageSize: 20, total: 0, totalPages: 0 } });
  });
});

describe("POST /agents/eval-requests/{evalId}/assessments", () => {
  it("answers 201 with the stored assessment", async () => {
    const { evalId } = await submitOk(h, owner);
    const result = await assess(h, peerA, evalId, { score: 72.5, agentName: "  padded  " });
    expect(result.status).toBe(201);
    expect(result.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      agentName: "padded",
      modelName: "model-x",
      score: 72.5,
      decision: "accept",
      critique: "Accurate and clear.",
      createdAt: h.clock.now().toISOString(),
    });
  });

  it("enforces every bound of the assessment body, storing nothing on failure", async () => {
    const { evalId } = await submitOk(h, owner);
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ agentName: "" }, /^agentName: /],
      [{ agentName: "   " }, /^agentName: /],
      [{ agentName: "a".repeat(201) }, /^agentName: must be at most 200/],
      [{ agentName: undefined }, /^agentName: /],
      [{ modelName: "" }, /^modelName: /],
      [{ modelName: "m".repeat(201) }, /^modelName: must be at most 200/],
      [{ score: -0.1 }, /^score: /],
      [{ score: 100.01 }, /^score: /],
      [{ score: "80" }, /^score: /],
      [{ score: undefined }, /^score: /],
      [{ decision: "maybe" }, /^decision: /],
      [{ decision: "ACCEPT" }, /^decision: /],
      [{ critique: "" }, /^critique: must not be empty/],
      [{ critique: " \n " }, /^critique: must not be empty/],
      [{ critique: "é".repeat(1025) }, /^critique: must be at most 2 KB/],
      [{ critique: undefined }, /^critique: /],
      [{ critique: "bad \u0000 byte" }, /^critique: must not contain NUL/],
      [{ agentName: "a\u0000" }, /^agentName: must not contain control characters/],
    ];
    for (const [overrides, message] of cases) {
      const result = await assess(h, peerA, evalId, overrides);
      expect(result.status, JSON.stringify(overrides)).toBe(400);
      expect(errorOf(result)).toMatch(message);
    }
    expect(await countRows(h, "eval_assessments WHERE evaluation_id = (SELECT id FROM offchain.evaluations WHERE eval_id = $$" + evalId + "$$)")).toBe(0);

    // The bounds themselves are accepted.
    const edge = await assess(h, peerA, evalId, {
      agentName: "a".repeat(200),
      modelName: "😀".repeat(200),
      score: 0,
      decision: "reject",
      critique: "é".repeat(1024),
    });
    expect(edge.status).toBe(201);
    expect((await assess(h, peerB, evalId, { score: 100, decision: "revise" })).status).toBe(201);
  });

  it("allows one assessment per account (a second is 409), never on one's own, never after the window", async () => {
    const { evalId } = await submitOk(h, owner, { settlementMinutes: 10 });
    expect((await assess(h, peerA, evalId)).status).toBe(201);
    const again = await assess(h, peerA, evalId, { score: 10 });
    expect(again.status).toBe(409);
    expect(errorOf(again)).toBe("You have already assessed this evaluation");

    const ownResult = await assess(h, owner, evalId);
    expect(ownResult.status).toBe(403);
    expect(errorOf(ownResult)).toBe("You cannot assess your own evaluation");

    h.clock.advanceMinutes(10);
    const late = await assess(h, peerB, evalId);
    expect(late.status).toBe(409);
    expect(errorOf(late)).toBe("The assessment window of this evaluation has closed");

    const missing = await assess(h, peerB, "eval_ffffffffffffffffffffffff");
    expect(missing.status).toBe(404);
    const read = await call(h.app, "GET", `/agents/eval-requests/${evalId}`, { key: owner });
    expect(read.body.peerAssessmentCount).toBe(1);
  });

  it("stores exactly one of concurrent duplicate assessments", async () => {
    const { evalId } = await submitOk(h, owner);
    const results = await Promise.all(Array.from({ length: 4 }, () => assess(h, peerB, evalId)));
    expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409, 409]);
  });

  it("accepts the internal id nowhere: assessing by it is 404", async () => {
    const { id } = await submitOk(h, owner);
    const result = await call(h.app, "POST", `/agents/eval-requests/${id}/assessments`, { key: peerA, body: validAssessment() });
    expect(result.status).toBe(404);
  });
});
