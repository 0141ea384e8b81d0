import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sha256Hex as hashApiKey } from "../../api/lib/crypto";
import { issueKeyForAccountName, revokeApiKey } from "../../api/eval/repositories/keys";
import { parseKeyArgs, runKeyCommand, UsageError } from "../../api/eval/operator";
import { call, countRows, errorOf, newKey, startEvalHarness, validSubmit, type EvalHarness } from "./support";

let h: EvalHarness;

beforeAll(async () => {
  h = await startEvalHarness();
});

afterAll(async () => {
  await h?.close();
});

const PROTECTED: [string, string][] = [
  ["POST", "/agents/eval-requests/submit"],
  ["GET", "/agents/eval-requests/eval_000000000000000000000000"],
  ["POST", "/agents/eval-requests/attachments"],
  ["GET", "/agents/eval-requests/pending"],
  ["POST", "/agents/eval-requests/eval_000000000000000000000000/assessments"],
];

describe("API keys", () => {
  it("every evaluation route answers exactly 401 {error: Unauthorized} without a key", async () => {
    for (const [method, path] of PROTECTED) {
      const result = await call(h.app, method, path, method === "POST" ? { body: validSubmit() } : {});
      expect(result.status, `${method} ${path}`).toBe(401);
      expect(result.body).toEqual({ error: "Unauthorized" });
    }
  });

  it("rejects an unknown key, a malformed header and an over-long key before validating the body", async () => {
    const attempts: Record<string, string>[] = [
      { authorization: "Bearer evk_not-a-real-key" },
      { authorization: "Basic dXNlcjpwYXNz" },
      { authorization: "Bearer" },
      { "x-api-key": "" },
      { "x-api-key": "x".repeat(10_000) },
    ];
    for (const headers of attempts) {
      const result = await call(h.app, "POST", "/agents/eval-requests/submit", { body: { nonsense: true }, headers });
      expect(result.status).toBe(401);
      expect(result.body).toEqual({ error: "Unauthorized" });
    }
  });

  it("accepts the key as Authorization: Bearer and as x-api-key", async () => {
    const key = await newKey(h, "both-headers");
    const viaBearer = await call(h.app, "GET", "/agents/eval-requests/pending", { headers: { authorization: `Bearer ${key}` } });
    const viaHeader = await call(h.app, "GET", "/agents/eval-requests/pending", { headers: { "x-api-key": key } });
    const lowerScheme = await call(h.app, "GET", "/agents/eval-requests/pending", { headers: { authorization: `bearer ${key}` } });
    expect([viaBearer.status, viaHeader.status, lowerScheme.status]).toEqual([200, 200, 200]);
  });

  it("stores only the sha-256 of a key, and a revoked key stops working", async () => {
    const issued = await issueKeyForAccountName(h.store.db, "revoked-soon");
    const stored = await h.store.pool.query("SELECT key_hash FROM offchain.eval_api_keys WHERE id = $1", [issued.keyId]);
    expect(stored.rows[0].key_hash).toBe(hashApiKey(issued.key));
    expect(JSON.stringify(stored.rows)).not.toContain(issued.key);

    expect((await call(h.app, "GET", "/agents/eval-requests/pending", { key: issued.key })).status).toBe(200);
    expect(await revokeApiKey(h.store.db, issued.keyId)).toBe(true);
    expect(await revokeApiKey(h.store.db, issued.keyId)).toBe(false);
    const after = await call(h.app, "GET", "/agents/eval-requests/pending", { key: issued.key });
    expect(after.status).toBe(401);
    expect(after.body).toEqual({ error: "Unauthorized" });
  });

  it("the operator command creates an account once and prints a new working key each time", async () => {
    const first = await runKeyCommand(h.store.db, parseKeyArgs(["--account", "ops-team", "--label", "ci"]));
    const second = await runKeyCommand(h.store.db, parseKeyArgs(["--account", "ops-team"]));
    const keyOf = (output: string) => output.match(/API key \(shown once, store it now\): (\S+)/)![1]!;
    const accountOf = (output: string) => output.match(/Account: ops-team \(([0-9a-f-]+)\)/)![1];
    expect(first).toContain("created");
    expect(second).not.toContain("created");
    expect(accountOf(first)).toBe(accountOf(second));
    expect(keyOf(first)).not.toBe(keyOf(second));
    for (const key of [keyOf(first), keyOf(second)]) {
      expect((await call(h.app, "GET", "/agents/eval-requests/pending", { key })).status).toBe(200);
    }
    const keyId = second.match(/Key id:\s+(\S+)/)![1]!;
    expect(await runKeyCommand(h.store.db, parseKeyArgs(["--revoke", keyId]))).toContain("Revoked");
    expect((await call(h.app, "GET", "/agents/eval-requests/pending", { key: keyOf(second) })).status).toBe(401);
  });

  it("the operator command refuses bad arguments", () => {
    expect(() => parseKeyArgs([])).toThrow(UsageError);
    expect(() => parseKeyArgs(["--account", "   "])).toThrow(/must not be empty/);
    expect(() => parseKeyArgs(["--account", "x".repeat(201)])).toThrow(/at most 200/);
    expect(() => parseKeyArgs(["--revoke", "not-a-uuid"])).toThrow(/UUID/);
    expect(() => parseKeyArgs(["--account", "a", "--bogus"])).toThrow(UsageError);
  });
});

describe("POST /keys", () => {
  it("issues a working key to a new account without authentication", async () => {
    const result = await call(h.app, "POST", "/keys", { body: { name: "self-serve" } });
    expect(result.status).toBe(201);
    expect(Object.keys(result.body).sort()).toEqual(["accountId", "accountName", "createdAt", "key", "keyId"]);
    expect(result.body.accountName).toBe("self-serve");
    expect(String(result.body.key)).toMatch(/^evk_[A-Za-z0-9_-]{43}$/);
    const use = await call(h.app, "GET", "/agents/eval-requests/pending", { key: result.body.key as string });
    expect(use.status).toBe(200);
  });

  it("needs no body, and each call is a new account", async () => {
    const a = await call(h.app, "POST", "/keys");
    const b = await call(h.app, "POST", "/keys", { body: {} });
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(a.body.accountName).toBe("anonymous");
    expect(a.body.accountId).not.toBe(b.body.accountId);
  });

  it("rejects a bad name with 400 and no new account", async () => {
    const before = await countRows(h, "eval_accounts");
    for (const body of [{ name: "" }, { name: "x".repeat(201) }, { name: 42 }, { name: "a\u0000b" }]) {
      const result = await call(h.app, "POST", "/keys", { body });
      expect(result.status).toBe(400);
      expect(errorOf(result)).toMatch(/^name: /);
    }
    const broken = await call(h.app, "POST", "/keys", { raw: "{", headers: { "content-type": "application/json" } });
    expect(broken.status).toBe(400);
    expect(errorOf(broken)).toBe("Invalid JSON body");
    expect(await countRows(h, "eval_accounts")).toBe(before);
  });

  it("is rate-limited per client IP", async () => {
    const app = h.buildApp({}, { keyIssuancePoints: 2, apiEnv: { TRUST_PROXY: "true" } });
    const from = (ip: string) => ({ headers: { "x-forwarded-for": ip } });
    expect((await call(app, "POST", "/keys", from("198.51.100.7"))).status).toBe(201);
    expect((await call(app, "POST", "/keys", from("198.51.100.7"))).status).toBe(201);
    const limited = await call(app, "POST", "/keys", from("198.51.100.7"));
    expect(limited.status).toBe(429);
    expect(errorOf(limited)).toBe("Too many requests");
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await call(app, "POST", "/keys", from("198.51.100.8"))).status).toBe(201);
  });

  it("answers 403 when open issuance is disabled", async () => {
    const app = h.buildApp({ EVAL_API_KEYS_OPEN_ISSUANCE: "false" });
    const before = await countRows(h, "eval_accounts");
    const result = await call(app, "POST", "/keys", { body: { name: "nope" } });
    expect(result.status).toBe(403);
    expect(errorOf(result)).toBe("API key issuance is disabled");
    expect(await countRows(h, "eval_accounts")).toBe(before);
  });
});

describe("OpenAPI document", () => {
  it("documents every route, both ways of sending the key, and the shared schemas", async () => {
    const response = await h.app.request("/openapi.json");
    expect(response.status).toBe(200);
    const document = (await response.json()) as {
      paths: Record<string, Record<string, { security?: unknown[] }>>;
      components: { securitySchemes: Record<string, unknown>; schemas: Record<string, unknown> };
    };
    expect(Object.keys(document.paths)).toEqual(
      expect.arrayContaining([
        "/api/v1/keys",
        "/api/v1/agents/eval-requests/submit",
        "/api/v1/agents/eval-requests/{evalId}",
        "/api/v1/agents/eval-requests/attachments",
        "/api/v1/agents/eval-requests/pending",
        "/api/v1/agents/eval-requests/{evalId}/assessments",
        "/api/v1/storage/uploads/{key}",
        "/api/v1/storage/downloads/{key}",
      ]),
    );
    expect(document.components.securitySchemes).toMatchObject({
      ApiKeyBearer: { type: "http", scheme: "bearer" },
      ApiKeyHeader: { type: "apiKey", in: "header", name: "x-api-key" },
    });
    expect(document.paths["/api/v1/agents/eval-requests/submit"]!.post!.security).toEqual([
      { ApiKeyBearer: [] },
      { ApiKeyHeader: [] },
    ]);
    expect(document.paths["/api/v1/keys"]!.post!.security).toBeUndefined();
    expect(Object.keys(document.components.schemas)).toEqual(
      expect.arrayContaining(["Evaluation", "SubmitEvaluationRequest", "PendingEvaluations", "PeerAssessment", "SettledVerdict"]),
    );
  });
});
