import http from "node:http";
import type { AddressInfo } from "node:net";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb, type Database } from "../../api/db/client";
import { loadEvalConfig } from "../../api/eval/config";
import { parseReviewArgs, recordHumanReview } from "../../api/eval/operator";
import { createLlmJudge, type LlmJudge } from "../../api/eval/settlement/llm-judge";
import { SettlementWorker, type SettlementWorkerOptions } from "../../api/eval/settlement/worker";
import { createLogger } from "../../api/http/logger";
import {
  assess,
  call,
  newKey,
  PDF,
  PNG,
  startEvalHarness,
  submitOk,
  uploadAttachment,
  type EvalHarness,
} from "./support";

let h: EvalHarness;
let owner: string;
let peers: string[];
const extraPools: Database[] = [];

// ------------------------------------------------------------------ fake judge

interface JudgeCall {
  path: string;
  authorization: string | undefined;
  body: {
    model: string;
    messages: { role: string; content: string | { type: string; text?: string; image_url?: { url: string }; file?: { filename: string; file_data: string } }[] }[];
  };
}

let judgeServer: http.Server;
let judgeUrl: string;
const judgeCalls: JudgeCall[] = [];
let judgeMode: "ok" | "error" | "garbage" = "ok";

function judgeAnswer(criteria: string[]) {
  return {
    criteria: criteria.map((criterion, i) => ({ criterion, score: 90 - i * 10, critique: `About ${criterion}.` })),
    decision: "accept",
    summary: "Judged by the fake judge.",
  };
}

beforeAll(async () => {
  h = await startEvalHarness();
  owner = await newKey(h, "owner");
  peers = await Promise.all(["p1", "p2", "p3"].map((name) => newKey(h, name)));

  judgeServer = http.createServer((req, res) => {
    let raw = "";
    req.on("data", (chunk) => (raw += chunk));
    req.on("end", () => {
      const body = JSON.parse(raw) as JudgeCall["body"];
      judgeCalls.push({ path: req.url ?? "", authorization: req.headers.authorization, body });
      if (judgeMode === "error") {
        res.writeHead(500, { "content-type": "application/json" }).end(JSON.stringify({ error: { message: "boom" } }));
        return;
      }
      const userText = (body.messages[1]!.content as { type: string; text?: string }[])[0]!.text!;
      const criteria = userText
        .split("Criteria:\n")[1]!
        .split("\n\n")[0]!
        .split("\n")
        .map((line) => line.replace(/^\d+\. /, ""));
      const content = judgeMode === "garbage" ? "I refuse to answer in JSON." : JSON.stringify(judgeAnswer(criteria));
      res.writeHead(200, { "content-type": "application/json" }).end(
        JSON.stringify({
          id: "chatcmpl-test",
          object: "chat.completion",
          created: 0,
          model: body.model,
          choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content } }],
        }),
      );
    });
  });
  await new Promise<void>((resolve) => judgeServer.listen(0, "127.0.0.1", resolve));
  judgeUrl = `http://127.0.0.1:${(judgeServer.address() as AddressInfo).port}/v1`;
});

afterAll(async () => {
  await new Promise((resolve) => judgeServer?.close(resolve));
  await Promise.all(extraPools.map((p) => p.pool.end()));
  await h?.close();
});

function fakeJudge(): LlmJudge {
  const config = loadEvalConfig({
    EVAL_JUDGE_BASE_URL: judgeUrl,
    EVAL_JUDGE_API_KEY: "judge-test-key",
    EVAL_JUDGE_MODEL: "fake-judge-1",
  }).judge!;
  return createLlmJudge(config, new OpenAI({ baseURL: config.baseUrl, apiKey: config.apiKey, maxRetries: 0, timeout: 5_000 }));
}

function worker(options: Partial<SettlementWorkerOptions> = {}): SettlementWorker {
  return new SettlementWorker({
    db: h.store.db,
    storage: h.storage,
    logger: createLogger("silent"),
    now: h.clock.now,
    ...options,
  });
}

async function read(evalId: string) {
  const result = await call(h.app, "GET", `/agents/eval-requests/${evalId}`, { key: owner });
  expect(result.status).toBe(200);
  return result.body as Record<string, any>;
}

async function status(evalId: string): Promise<string> {
  const result = await h.store.pool.query("SELECT status FROM offchain.evaluations WHERE eval_id = $1", [evalId]);
  return result.rows[0].status as string;
}

/** Moves the clock past every window so far, then settles everything due. */
async function settleAll(w = worker()) {
  return w.runOnce();
}

describe("settlement", () => {
  it("waits for the window, then settles from the peer assessments: SETTLED, score 100, settledAt, verdict", async () => {
    const { evalId } = await submitOk(h, owner, { settlementMinutes: 10 });
    expect((await assess(h, peers[0]!, evalId, { score: 80, decision: "accept", critique: "Correctness is solid." })).status).toBe(201);
    h.clock.advance(1_000); // critiques are listed in submission order
    expect((await assess(h, peers[1]!, evalId, { score: 90, decision: "accept", critique: "Clear." })).status).toBe(201);

    h.clock.advanceMinutes(9);
    expect((await settleAll()).settled).not.toContain(evalId);
    expect(await status(evalId)).toBe("PENDING");

    h.clock.advanceMinutes(1);
    const run = await settleAll();
    expect(run.settled).toContain(evalId);
    const body = await read(evalId);
    expect(body.status).toBe("SETTLED");
    expect(body.score).toBe(100);
    expect(body.settledAt).toBe(h.clock.now().toISOString());
    expect(body.verdict).toMatchObject({
      score: 85,
      decision: "accept",
      agreement: 0.889,
      dispersion: "low",
      route: "auto-ship",
      quorum: { served: 2, denied: 0 },
      summary: null,
    });
    expect(body.verdict.criteria).toEqual([
      {
        criterion: "Correctness",
        score: 85,
        judges: 2,
        critiques: [
          { source: "peer", by: "reviewer-bot (model-x)", text: "Correctness is solid." },
          { source: "peer", by: "reviewer-bot (model-x)", text: "Clear." },
        ],
      },
      { criterion: "Clarity", score: 85, judges: 2, critiques: [{ source: "peer", by: "reviewer-bot (model-x)", text: "Clear." }] },
    ]);
    expect(body.verdict.provenance.judges).toHaveLength(2);
    expect(body.peerAssessmentCount).toBe(2);
    // Served in the documented order, whatever order jsonb keeps.
    expect(Object.keys(body.verdict)).toEqual([
      "score", "decision", "criteria", "agreement", "dispersion", "route", "quorum", "summary", "provenance",
    ]);
    expect(Object.keys(body.verdict.quorum)).toEqual(["served", "denied"]);
    expect(Object.keys(body.verdict.provenance)).toEqual([
      "method", "weights", "criteriaSource", "judges", "attachment", "judgedAt",
    ]);
  });

  it("fails an evaluation that got no assessment when no judge is configured", async () => {
    const { evalId } = await submitOk(h, owner, { settlementMinutes: 10 });
    h.clock.advanceMinutes(10);
    const run = await settleAll();
    expect(run.failed).toContain(evalId);
    const body = await read(evalId);
    expect(body.status).toBe("FAILED");
    expect(body.score).toBe(0);
    expect(body.settledAt).toBe(h.clock.now().toISOString());
    expect(body.verdict).toEqual({ reason: expect.stringMatching(/No peer assessment.*no judge is configured/) });
  });

  it("weighs human reviews beside the peer assessments", async () => {
    const { evalId } = await submitOk(h, owner, { settlementMinutes: 10 });
    await assess(h, peers[0]!, evalId, { score: 20, decision: "reject" });
    await assess(h, peers[1]!, evalId, { score: 30, decision: "reject" });
    await recordHumanReview(
      h.store.db,
      parseReviewArgs(["--eval", evalId, "--reviewer-id", "r-9", "--reviewer-name", "Lee", "--score", "90", "--decision", "accept", "--critique", "Better than the peers think."]),
      h.clock.now(),
    );
    h.clock.advanceMinutes(10);
    await settleAll();
    const body = await read(evalId);
    expect(body.verdict.score).toBe(60);
    expect(body.verdict.decision).toBe("revise");
    expect(body.verdict.quorum).toEqual({ served: 3, denied: 0 });
    expect(body.humanReviewCount).toBe(1);
    expect(body.verdict.provenance.judges.map((j: { kind: string }) => j.kind)).toEqual(["peer", "peer", "human"]);
  });

  it("never settles twice: a second run finds nothing and the stored verdict stays", async () => {
    const { evalId } = await submitOk(h, owner, { settlementMinutes: 10 });
    await assess(h, peers[2]!, evalId, { score: 50, decision: "revise" });
    h.clock.advanceMinutes(10);
    await settleAll();
    const first = await read(evalId);
    h.clock.advanceMinutes(60);
    const again = await settleAll();
    expect([...again.settled, ...again.failed]).not.toContain(evalId);
    expect(await read(evalId)).toEqual(first);
  });

  it("settles each evaluation exactly once when two workers race", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 24; i++) {
      const { evalId } = await submitOk(h, owner, { settlementMinutes: 10, payload: `race ${i}` });
      if (i % 2 === 0) await assess(h, peers[i % 3]!, evalId, { score: 40 + i });
      ids.push(evalId);
    }
    h.clock.advanceMinutes(10);
    // Each worker has its own pool, like two replicas.
    const replicas = [createDb(h.database.url), createDb(h.database.url)];
    extraPools.push(...replicas);
    const [a, b] = replicas.map((replica, i) => worker({ db: replica.db, batchSize: 5, workerId: `replica-${i}` })) as [
      SettlementWorker,
      SettlementWorker,
    ];
    const runs = await Promise.all([a.runOnce(), b.runOnce(), a.runOnce(), b.runOnce()]);
    const judged = runs.flatMap((run) => [...run.settled, ...run.failed]);
    expect(runs.flatMap((run) => run.lost)).toEqual([]);
    expect(judged.filter((id) => ids.includes(id)).sort()).toEqual([...ids].sort());
    expect(new Set(judged).size).toBe(judged.length); // nobody judged twice
    const statuses = await h.store.pool.query(
      "SELECT status, count(*)::int AS n FROM offchain.evaluations WHERE eval_id = ANY($1) GROUP BY status ORDER BY status",
      [ids],
    );
    expect(statuses.rows).toEqual([
      { status: "FAILED", n: 12 },
      { status: "SETTLED", n: 12 },
    ]);
  });

  it("survives a crash mid-way: the lease runs out, another worker settles, the stale write is discarded", async () => {
    const { evalId } = await submitOk(h, owner, { settlementMinutes: 10 });
    await assess(h, peers[0]!, evalId, { score: 77 });
    h.clock.advanceMinutes(10);

    const crashed = worker({ workerId: "crashed", leaseSeconds: 60 });
    const claim = await crashed.claim();
    const row = claim.rows.find((r) => r.evalId === evalId)!;
    expect(row).toBeDefined();
    // While claimed (and the window closed) no assessment gets in.
    expect((await assess(h, peers[1]!, evalId)).status).toBe(409);

    const rescuer = worker({ workerId: "rescuer", leaseSeconds: 60 });
    expect((await rescuer.runOnce()).settled).not.toContain(evalId); // still leased
    h.clock.advance(61_000);
    expect((await rescuer.runOnce()).settled).toContain(evalId);
    expect(await crashed.settle(row, claim.token)).toBe("lost");
    const body = await read(evalId);
    expect(body.verdict.quorum).toEqual({ served: 1, denied: 0 });
    expect(body.verdict.score).toBe(77);
  });

  it("keeps an assessment made just before the window closed", async () => {
    const { evalId } = await submitOk(h, owner, { settlementMinutes: 10 });
    h.clock.advance(10 * 60_000 - 1);
    expect((await assess(h, peers[2]!, evalId, { score: 12, decision: "reject" })).status).toBe(201);
    h.clock.advance(1);
    await settleAll();
    const body = await read(evalId);
    expect(body.status).toBe("SETTLED");
    expect(body.verdict.quorum.served).toBe(1);
    expect(body.verdict.route).toBe("block");
  });
});

describe("settlement with the OpenAI-compatible judge", () => {
  it("asks the judge with the attachment as part of the submission and settles from it alone", async () => {
    judgeMode = "ok";
    judgeCalls.length = 0;
    const { ref } = await uploadAttachment(h, owner, PNG, "diagram.png", "image/png");
    const { evalId } = await submitOk(h, owner, { settlementMinutes: 10, attachments: [ref], context: "quiz" });
    h.clock.advanceMinutes(10);
    const run = await worker({ judge: fakeJudge() }).runOnce();
    expect(run.settled).toContain(evalId);

    const sent = judgeCalls.find((c) => JSON.stringify(c.body).includes("The capital of France"))!;
    expect(sent.path).toBe("/v1/chat/completions");
    expect(sent.authorization).toBe("Bearer judge-test-key");
    expect(sent.body.model).toBe("fake-judge-1");
    const parts = sent.body.messages[1]!.content as { type: string; text?: string; image_url?: { url: string } }[];
    expect(parts[0]!.text).toContain("The capital of France is Paris.");
    expect(parts[0]!.text).toContain("Context:\n<<<CONTEXT\nquiz");
    expect(parts[1]).toEqual({ type: "image_url", image_url: { url: `data:image/png;base64,${PNG.toString("base64")}` } });

    const body = await read(evalId);
    expect(body.status).toBe("SETTLED");
    expect(body.verdict.criteria.map((c: { criterion: string; score: number }) => [c.criterion, c.score])).toEqual([
      ["Correctness", 90],
      ["Clarity", 80],
    ]);
    expect(body.verdict.criteria[0].critiques).toEqual([{ source: "llm", by: "fake-judge-1", text: "About Correctness." }]);
    expect(body.verdict.score).toBe(85);
    expect(body.verdict.summary).toBe("Judged by the fake judge.");
    expect(body.verdict.quorum).toEqual({ served: 1, denied: 0 });
    expect(body.verdict.provenance.judges).toEqual([
      { kind: "llm", model: "fake-judge-1", status: "served", score: 85, decision: "accept", weight: 1 },
    ]);
    expect(body.verdict.provenance.attachment).toMatchObject({ filename: "diagram.png", contentType: "image/png" });
  });

  it("sends a PDF as a file part and weighs the judge beside the peers", async () => {
    judgeMode = "ok";
    judgeCalls.length = 0;
    const { ref } = await uploadAttachment(h, owner, PDF, "report.pdf", "application/pdf");
    const { evalId } = await submitOk(h, owner, { settlementMinutes: 10, attachments: [ref], payload: "pdf report", criteria: ["Depth"] });
    await assess(h, peers[0]!, evalId, { score: 50, decision: "revise" });
    h.clock.advanceMinutes(10);
    await worker({ judge: fakeJudge() }).runOnce();
    const sent = judgeCalls.find((c) => JSON.stringify(c.body).includes("pdf report"))!;
    const parts = sent.body.messages[1]!.content as { type: string; file?: { filename: string; file_data: string } }[];
    expect(parts[1]).toEqual({
      type: "file",
      file: { filename: "report.pdf", file_data: `data:application/pdf;base64,${PDF.toString("base64")}` },
    });
    const body = await read(evalId);
    expect(body.verdict.criteria).toEqual([expect.objectContaining({ criterion: "Depth", score: 70, judges: 2 })]);
    expect(body.verdict.quorum).toEqual({ served: 2, denied: 0 });
  });

  it("settles from the peers when the judge fails, counting it as denied", async () => {
    judgeMode = "error";
    const { evalId } = await submitOk(h, owner, { settlementMinutes: 10, payload: "judge down" });
    await assess(h, peers[1]!, evalId, { score: 88 });
    h.clock.advanceMinutes(10);
    await worker({ judge: fakeJudge() }).runOnce();
    const body = await read(evalId);
    expect(body.status).toBe("SETTLED");
    expect(body.verdict.quorum).toEqual({ served: 1, denied: 1 });
    expect(body.verdict.provenance.judges.at(-1)).toEqual({
      kind: "llm",
      model: "fake-judge-1",
      status: "denied",
      error: "the judge answered HTTP 500",
    });
  });

  it("retries a failing judge that is the only one, then fails the evaluation with the reason", async () => {
    judgeMode = "garbage";
    const { evalId } = await submitOk(h, owner, { settlementMinutes: 10, payload: "nobody but the judge" });
    h.clock.advanceMinutes(10);
    const w = worker({ judge: fakeJudge(), judgeRetrySeconds: 180 });
    expect((await w.runOnce()).retried).toContain(evalId);
    expect(await status(evalId)).toBe("PENDING");
    h.clock.advanceMinutes(2);
    expect((await w.runOnce()).retried).toContain(evalId);
    h.clock.advanceMinutes(1);
    expect((await w.runOnce()).failed).toContain(evalId);
    const body = await read(evalId);
    expect(body.status).toBe("FAILED");
    expect(body.verdict).toEqual({ reason: expect.stringContaining("holds no JSON object") });

    judgeMode = "ok";
  });
});

describe("the polling loop", () => {
  it("settles due evaluations on its own within a poll interval and stops cleanly", async () => {
    const { evalId } = await submitOk(h, owner, { settlementMinutes: 10 });
    await assess(h, peers[0]!, evalId, { score: 66 });
    const w = worker({ pollSeconds: 0.05 });
    w.start();
    try {
      await new Promise((resolve) => setTimeout(resolve, 150));
      expect(await status(evalId)).toBe("PENDING"); // window still open on the test clock
      h.clock.advanceMinutes(10);
      const deadline = Date.now() + 30_000;
      while ((await status(evalId)) === "PENDING" && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      expect(await status(evalId)).toBe("SETTLED");
    } finally {
      await w.stop();
    }
  });

  it("refuses a poll interval above 30 seconds", () => {
    expect(() => worker({ pollSeconds: 31 })).toThrow(/pollSeconds/);
    expect(() => loadEvalConfig({ EVAL_WORKER_POLL_SECONDS: "31" })).toThrow(/EVAL_WORKER_POLL_SECONDS/);
    expect(loadEvalConfig({}).worker.pollSeconds).toBeLessThanOrEqual(30);
  });
});
