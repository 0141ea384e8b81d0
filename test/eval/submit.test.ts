import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SETTLEMENT_MINUTES } from "../../api/eval/limits";
import { call, countRows, errorOf, newKey, startEvalHarness, submit, validSubmit, type EvalHarness } from "./support";

let h: EvalHarness;
let key: string;

beforeAll(async () => {
  h = await startEvalHarness();
  key = await newKey(h, "submitter");
});

afterAll(async () => {
  await h?.close();
});

const KB = 1024;
/** A string of exactly `bytes` bytes of UTF-8 made of 3-byte characters (plus ASCII padding). */
const utf8OfBytes = (bytes: number) => "€".repeat(Math.floor(bytes / 3)) + "a".repeat(bytes % 3);

/** Submits `overrides`, expects 400 naming `field`, and that nothing was stored. */
async function expectRejected(overrides: Record<string, unknown>, field: RegExp) {
  const before = await countRows(h, "evaluations");
  const result = await submit(h, key, overrides);
  expect(result.status, JSON.stringify(result.body)).toBe(400);
  expect(errorOf(result)).toMatch(field);
  expect(await countRows(h, "evaluations")).toBe(before);
}

describe("POST /agents/eval-requests/submit", () => {
  it("answers 201 with evalId, internal id and PENDING (mode STANDARD)", async () => {
    const result = await submit(h, key);
    expect(result.status).toBe(201);
    expect(result.body).toMatchObject({ status: "PENDING", mode: "STANDARD" });
    expect(result.body.evalId).toMatch(/^eval_[0-9a-f]{24}$/);
    expect(result.body.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(result.body.evalId).not.toBe(result.body.id);
  });

  it("defaults the window to 15 minutes from the service clock", async () => {
    const result = await submit(h, key);
    expect(result.body.createdAt).toBe(h.clock.now().toISOString());
    expect(new Date(result.body.minSettleAt as string).getTime() - h.clock.now().getTime()).toBe(15 * 60_000);
  });

  it("accepts each allowed settlementMinutes and derives minSettleAt from it", async () => {
    for (const minutes of SETTLEMENT_MINUTES) {
      const result = await submit(h, key, { settlementMinutes: minutes });
      expect(result.status).toBe(201);
      const created = new Date(result.body.createdAt as string).getTime();
      expect(new Date(result.body.minSettleAt as string).getTime() - created).toBe(minutes * 60_000);
    }
  });

  it("rejects other settlementMinutes", async () => {
    for (const value of [0, 5, 11, 14.5, 20, 2880, -15, "15", null]) {
      await expectRejected({ settlementMinutes: value }, /^settlementMinutes: /);
    }
  });

  it("accepts only the four types", async () => {
    for (const type of ["answer", "plan", "trace", "artifact"]) expect((await submit(h, key, { type })).status).toBe(201);
    for (const type of ["ANSWER", "code", "", 1, null]) await expectRejected({ type }, /^type: /);
    await expectRejected({ type: undefined }, /^type: /);
  });

  it("bounds the payload: non-empty, at most 50 KB of UTF-8", async () => {
    expect((await submit(h, key, { payload: "x" })).status).toBe(201);
    expect((await submit(h, key, { payload: "a".repeat(50 * KB) })).status).toBe(201);
    expect((await submit(h, key, { payload: utf8OfBytes(50 * KB) })).status).toBe(201);
    await expectRejected({ payload: "a".repeat(50 * KB + 1) }, /^payload: must be at most 50 KB/);
    // 17,067 characters but 51,201 bytes: the bound is in bytes.
    await expectRejected({ payload: utf8OfBytes(50 * KB + 1) }, /^payload: must be at most 50 KB/);
    await expectRejected({ payload: "" }, /^payload: must not be empty/);
    await expectRejected({ payload: "  \n\t " }, /^payload: must not be empty/);
    await expectRejected({ payload: undefined }, /^payload: /);
    await expectRejected({ payload: 42 }, /^payload: /);
  });

  it("requires criteria: 0 to 10 items of at most 2 KB each", async () => {
    await expectRejected({ criteria: undefined }, /^criteria: /);
    await expectRejected({ criteria: null }, /^criteria: /);
    await expectRejected({ criteria: "Correctness" }, /^criteria: /);
    expect((await submit(h, key, { criteria: Array.from({ length: 10 }, (_, i) => `c${i}`) })).status).toBe(201);
    await expectRejected({ criteria: Array.from({ length: 11 }, (_, i) => `c${i}`) }, /^criteria: /);
    expect((await submit(h, key, { criteria: [utf8OfBytes(2 * KB)] })).status).toBe(201);
    await expectRejected({ criteria: ["ok", utf8OfBytes(2 * KB + 1)] }, /^criteria\.1: must be at most 2 KB/);
    await expectRejected({ criteria: [""] }, /^criteria\.0: must not be empty/);
    await expectRejected({ criteria: [3] }, /^criteria\.0: /);
  });

  it("picks 2 to 5 relevant dimensions when criteria is an empty array", async () => {
    const cases = [
      { type: "answer", payload: "The answer is 42 because 6 × 7 equals 42." },
      { type: "plan", payload: "Milestone 1 in week 2 with a rollback plan and a budget of 5k; risk: vendor delay." },
      { type: "trace", payload: "Thought: call the search tool. Observation: 3 results. Therefore I conclude..." },
      { type: "artifact", payload: "```ts\nexport function add(a, b) { return a + b }\n```" },
    ];
    for (const overrides of cases) {
      const created = await submit(h, key, { ...overrides, criteria: [] });
      expect(created.status).toBe(201);
      const read = await call(h.app, "GET", `/agents/eval-requests/${created.body.evalId}`, { key });
      const criteria = read.body.criteria as string[];
      expect(criteria.length).toBeGreaterThanOrEqual(2);
      expect(criteria.length).toBeLessThanOrEqual(5);
      expect(new Set(criteria).size).toBe(criteria.length);
    }
  });

  it("bounds the context at 32 KB and allows it absent or null", async () => {
    expect((await submit(h, key, { context: utf8OfBytes(32 * KB) })).status).toBe(201);
    expect((await submit(h, key, { context: null })).status).toBe(201);
    expect((await submit(h, key, { context: "" })).status).toBe(201);
    await expectRejected({ context: "a".repeat(32 * KB + 1) }, /^context: must be at most 32 KB/);
    await expectRejected({ context: 7 }, /^context: /);
  });

  it("allows at most one attachment, each well-formed", async () => {
    const ref = { key: "att_00000000000000000000000000000000", filename: "a.png", contentType: "image/png" };
    await expectRejected({ attachments: [ref, ref] }, /^attachments: /);
    await expectRejected({ attachments: [{ ...ref, contentType: "image/gif" }] }, /^attachments\.0\.contentType: /);
    await expectRejected({ attachments: [{ ...ref, filename: "" }] }, /^attachments\.0\.filename: /);
    await expectRejected({ attachments: [{ ...ref, filename: "x".repeat(256) }] }, /^attachments\.0\.filename: /);
    await expectRejected({ attachments: [{ filename: "a.png", contentType: "image/png" }] }, /^attachments\.0\.key: /);
    // Well-formed but never requested: unknown key.
    await expectRejected({ attachments: [ref] }, /^attachments\.0\.key: unknown attachment key/);
    expect((await submit(h, key, { attachments: [] })).status).toBe(201);
  });

  it("accepts a body at every bound at once, and refuses an over-large body with 413 before parsing", async () => {
    const atBounds = validSubmit({
      payload: utf8OfBytes(50 * KB),
      context: utf8OfBytes(32 * KB),
      criteria: Array.from({ length: 10 }, () => utf8OfBytes(2 * KB)),
    });
    expect((await call(h.app, "POST", "/agents/eval-requests/submit", { key, body: atBounds })).status).toBe(201);

    const before = await countRows(h, "evaluations");
    const huge = await call(h.app, "POST", "/agents/eval-requests/submit", {
      key,
      raw: JSON.stringify(validSubmit({ payload: "a".repeat(2 * 1024 * 1024) })),
      headers: { "content-type": "application/json" },
    });
    expect(huge.status).toBe(413);
    expect(errorOf(huge)).toBe("Payload too large");
    expect(await countRows(h, "evaluations")).toBe(before);
  });

  it("refuses characters PostgreSQL cannot store with a 400, not a 5xx", async () => {
    await expectRejected({ payload: "a\u0000b" }, /^payload: must not contain NUL/);
    await expectRejected({ context: "\u0000" }, /^context: must not contain NUL/);
    await expectRejected({ criteria: ["ok", "x\u0000"] }, /^criteria\.1: must not contain NUL/);
    await expectRejected(
      { attachments: [{ key: "att_\u0000", filename: "a.png", contentType: "image/png" }] },
      /^attachments\.0\.key: /,
    );
    for (const path of ["/agents/eval-requests/%00", "/agents/eval-requests/a%00b/assessments"]) {
      const result = await call(h.app, path.endsWith("assessments") ? "POST" : "GET", path, {
        key,
        body: path.endsWith("assessments")
          ? { agentName: "a", modelName: "m", score: 1, decision: "accept", critique: "c" }
          : undefined,
      });
      expect(result.status, path).toBe(400);
      expect(errorOf(result)).toMatch(/^evalId: /);
    }
    // Lone surrogates are not an error: they are stored as U+FFFD.
    expect((await submit(h, key, { payload: "\ud800 lone" })).status).toBe(201);
  });

  it("answers bad JSON, a non-JSON body and a missing body with flat 4xx errors", async () => {
    const broken = await call(h.app, "POST", "/agents/eval-requests/submit", {
      key,
      raw: "{\"type\":",
      headers: { "content-type": "application/json" },
    });
    expect(broken.status).toBe(400);
    expect(errorOf(broken)).toBe("Invalid JSON body");
    const text = await call(h.app, "POST", "/agents/eval-requests/submit", {
      key,
      raw: "type=answer",
      headers: { "content-type": "text/plain" },
    });
    expect(text.status).toBe(415);
    errorOf(text);
    const empty = await call(h.app, "POST", "/agents/eval-requests/submit", { key });
    expect(empty.status).toBeGreaterThanOrEqual(400);
    expect(empty.status).toBeLessThan(500);
    errorOf(empty);
    const array = await call(h.app, "POST", "/agents/eval-requests/submit", { key, body: [1, 2] });
    expect(array.status).toBe(400);
    errorOf(array);
  });
});

describe("Idempotency-Key", () => {
  it("returns the same evaluation for the same key and body", async () => {
    const before = await countRows(h, "evaluations");
    const headers = { "idempotency-key": "order-123" };
    const first = await submit(h, key, { payload: "idempotent" }, headers);
    h.clock.advance(1_000);
    const second = await submit(h, key, { payload: "idempotent", settlementMinutes: 15 }, headers);
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.body).toEqual(first.body);
    expect(second.headers.get("idempotent-replayed")).toBe("true");
    expect(await countRows(h, "evaluations")).toBe(before + 1);
  });

  it("answers 422 for the same key with another body, and changes nothing", async () => {
    const headers = { "idempotency-key": "order-456" };
    expect((await submit(h, key, { payload: "one" }, headers)).status).toBe(201);
    const before = await countRows(h, "evaluations");
    const reuse = await submit(h, key, { payload: "two" }, headers);
    expect(reuse.status).toBe(422);
    expect(errorOf(reuse)).toMatch(/Idempotency-Key/);
    expect(await countRows(h, "evaluations")).toBe(before);
  });

  it("scopes keys per account, and settles concurrent duplicates on one evaluation", async () => {
    const other = await newKey(h, "other-submitter");
    const headers = { "idempotency-key": "shared-key" };
    const mine = await submit(h, key, {}, headers);
    const theirs = await submit(h, other, {}, headers);
    expect(mine.body.evalId).not.toBe(theirs.body.evalId);

    const race = await Promise.all(Array.from({ length: 5 }, () => submit(h, key, { payload: "race" }, { "idempotency-key": "race-key" })));
    expect(race.map((r) => r.status)).toEqual([201, 201, 201, 201, 201]);
    expect(new Set(race.map((r) => r.body.evalId)).size).toBe(1);
  });

  it("rejects an over-long or non-ASCII key", async () => {
    await expect(submit(h, key, {}, { "idempotency-key": "k".repeat(256) })).resolves.toMatchObject({ status: 400 });
    const result = await submit(h, key, {}, { "idempotency-key": "k".repeat(255) });
    expect(result.status).toBe(201);
  });
});
