/**
 * A bounded, deterministic fuzz of the three surfaces (Platform API, chat server, Evaluation API)
 * with their real dependencies up: one seeded devnet, one fresh migrated database and the indexer
 * caught up. For every operation of each app's own `/openapi.json`, a fixed number of malformed
 * requests (broken JSON, wrong types, missing fields, huge and control-character strings, odd
 * numbers, bad path and query parameters), with and without valid credentials. Every answer must
 * be below 500 (503 included: the dependencies are up) and every 4xx a flat `{"error": "..."}`.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../api/config";
import { createEvalApp } from "../../api/eval/app";
import { loadEvalConfig } from "../../api/eval/config";
import { issueKeyForAccountName } from "../../api/eval/repositories/keys";
import { createAttachmentStorage } from "../../api/eval/storage/index";
import { createLogger } from "../../api/http/logger";
import { createMemoryRateLimiter } from "../../api/http/rate-limit";
import { roleAccount } from "../../devnet/accounts";
import { listed, mintedPod, publishDatanet, registerAgent } from "../platform/agents-harness";
import { STATS_KEY, startPlatformHarness, type PlatformHarness } from "../platform/harness";
import { protocolOf, signIn, startChatApp, startFakePostSource, type ChatTestServer, type LocalServer } from "../chat/support";

// ------------------------------------------------------------------ deterministic randomness

/** mulberry32: a small seeded PRNG, so every run sends the same requests. */
function prng(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (n: number) => Math.floor(next() * n),
    pick<T>(items: readonly T[]): T {
      return items[Math.floor(next() * items.length)]!;
    },
  };
}
type Rng = ReturnType<typeof prng>;

function hashString(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return h >>> 0;
}

const hex = (rng: Rng, n: number) => Array.from({ length: n }, () => "0123456789abcdef"[rng.int(16)]).join("");
const uuid = (rng: Rng) => `${hex(rng, 8)}-${hex(rng, 4)}-4${hex(rng, 3)}-8${hex(rng, 3)}-${hex(rng, 12)}`;

// ------------------------------------------------------------------ OpenAPI walking

type Schema = Record<string, any>;
type Doc = { paths: Record<string, Record<string, any>>; components?: { schemas?: Record<string, Schema> } };
const METHODS = ["get", "post", "put", "patch", "delete"] as const;

interface Operation {
  method: string;
  path: string;
  pathParams: Schema[];
  queryParams: Schema[];
  body: Schema | undefined;
  security: string[];
}

function resolve(doc: Doc, schema: Schema | undefined, depth = 0): Schema {
  if (!schema || depth > 8) return {};
  if (typeof schema.$ref === "string") {
    const name = schema.$ref.split("/").pop()!;
    return resolve(doc, doc.components?.schemas?.[name], depth + 1);
  }
  return schema;
}

/** One object schema of a union or intersection: the properties of `allOf` parts and of the first variant. */
function flatten(doc: Doc, raw: Schema | undefined): Schema {
  const schema = resolve(doc, raw);
  const parts = [...(schema.allOf ?? []), ...(schema.anyOf ?? schema.oneOf ?? []).slice(0, 1)].map((part: Schema) => flatten(doc, part));
  if (parts.length === 0) return schema;
  const properties = Object.assign({}, ...parts.map((part: Schema) => part.properties ?? {}), schema.properties ?? {});
  if (Object.keys(properties).length === 0) return { ...parts[0], ...schema, allOf: undefined, anyOf: undefined, oneOf: undefined };
  return { type: "object", properties };
}

/** Values by field name where the schema alone says too little (refined strings). */
let knownBodyValue: (name: string) => string | undefined = () => undefined;
function byName(name: string, rng: Rng): unknown {
  const known = knownBodyValue(name);
  if (known !== undefined) return known;
  if (/hash$/i.test(name)) return `0x${hex(rng, 64)}`;
  if (/(address|wallet)$/i.test(name)) return `0x${hex(rng, 40)}`;
  if (name === "amount") return "1";
  if (/epoch/i.test(name)) return 1;
  return undefined;
}

function operationsOf(doc: Doc): Operation[] {
  const operations: Operation[] = [];
  for (const [p, item] of Object.entries(doc.paths)) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const params: Schema[] = [...(item.parameters ?? []), ...(op.parameters ?? [])];
      const jsonBody = op.requestBody?.content?.["application/json"]?.schema;
      operations.push({
        method: method.toUpperCase(),
        path: p,
        pathParams: params.filter((param) => param.in === "path"),
        queryParams: params.filter((param) => param.in === "query"),
        body: jsonBody ? resolve(doc, jsonBody) : op.requestBody ? {} : undefined,
        security: (op.security ?? []).flatMap((entry: Record<string, unknown>) => Object.keys(entry)),
      });
    }
  }
  return operations;
}

/** A plausible value of `schema` (the base that one mutation at a time breaks). */
function sample(doc: Doc, raw: Schema | undefined, rng: Rng, depth = 0): unknown {
  const schema = flatten(doc, raw);
  if (depth > 5) return null;
  if (schema.example !== undefined) return schema.example;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  if (schema.const !== undefined) return schema.const;
  const variants = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(variants) && variants.length > 0) return sample(doc, variants[0], rng, depth + 1);
  if (Array.isArray(schema.allOf) && schema.allOf.length > 0) return sample(doc, schema.allOf[0], rng, depth + 1);
  const type = Array.isArray(schema.type) ? schema.type.find((t: string) => t !== "null") : schema.type;
  switch (type) {
    case "object":
    case undefined: {
      if (!schema.properties) return type === "object" ? {} : "x";
      const out: Record<string, unknown> = {};
      for (const [key, value] of Object.entries(schema.properties)) out[key] = byName(key, rng) ?? sample(doc, value as Schema, rng, depth + 1);
      return out;
    }
    case "array":
      return [sample(doc, schema.items, rng, depth + 1)];
    case "integer":
      return Math.max(schema.minimum ?? 1, 1);
    case "number":
      return Math.max(schema.minimum ?? 1, 1);
    case "boolean":
      return true;
    case "string": {
      if (schema.format === "uuid") return uuid(rng);
      if (schema.format === "uri" || schema.format === "url") return "https://example.com/a";
      if (schema.format === "email") return "a@example.com";
      if (schema.format === "date-time") return "2030-01-01T00:00:00.000Z";
      const pattern = String(schema.pattern ?? "");
      if (pattern.includes("0x") && pattern.includes("64")) return `0x${hex(rng, 64)}`;
      if (pattern.includes("0x")) return `0x${hex(rng, 40)}`;
      if (pattern.includes("\\d") || pattern.includes("[0-9]")) return "1";
      return "x".repeat(Math.max(schema.minLength ?? 1, 3));
    }
    default:
      return null;
  }
}

const HUGE = "A".repeat(100 * 1024);
/** At most this many text fields of a body get their own control-character case. */
const MAX_FIELD_SWEEP = 8;
const CONTROL = "a\u0000b\u0001\u0007\u001b[31m\r\n\t\u007f\u2028\ud800z";
/** CONTROL for a URL: the lone surrogate cannot be percent-encoded, so an invalid UTF-8 byte stands in. */
const CONTROL_QUERY = `${encodeURIComponent(CONTROL.replace("\ud800", ""))}%C3%28`;
const BAD_PATH = ["not-a-uuid", "99999999999999999999999", "-1", "%00", "..%2F..%2Fetc", "1.5", "0x", "%E2%28%A1", "NaN", "  ", `${"9".repeat(300)}`];
const WRONG_VALUES: unknown[] = [123, -1, 1.5, true, null, {}, [], "str", [1, 2], { nested: { deep: true } }];
// biome-ignore lint/correctness/noPrecisionLoss: a number past 2^64 is one of the odd inputs sent
const ODD_NUMBERS: unknown[] = [-1, 0, 1e308, -1e308, 0.5, 99999999999999999999999, "NaN", "12", "Infinity", "-0", 2 ** 53 + 1];
const ODD_QUERY = [
  "page=-1",
  "limit=1e9",
  "page=NaN&limit=-5",
  "filters[foo]=bar&filters[][x]=1",
  "limit=99999999999999999999999",
  "page=1.5&limit=0.1",
  "sort=%00&order=sideways",
  "q=%00%01%1b",
  `q=${"Z".repeat(10_000)}`,
  "cursor=..%2F..%2F&offset=-9",
];

interface Case {
  label: string;
  path: string;
  query: string;
  body: string | undefined;
  contentType: string | undefined;
  authed: boolean;
}

/** Real values for path parameters (an existing datanet, pod, agent...), so requests get past the lookups. */
type KnownParams = (path: string, name: string) => string | undefined;
let knownParams: KnownParams = () => undefined;

function pathWith(op: Operation, rng: Rng, bad: boolean, badValue?: string): string {
  let result = op.path;
  for (const param of op.pathParams) {
    const schema = param.schema ?? {};
    const good =
      knownParams(op.path, param.name) ?? (schema.format === "uuid" ? uuid(rng) : String(sample({ paths: {} }, schema, rng) ?? "1"));
    const value = bad ? (badValue ?? rng.pick(BAD_PATH)) : encodeURIComponent(good);
    result = result.replace(`{${param.name}}`, value);
  }
  return result;
}

function validQuery(doc: Doc, op: Operation, rng: Rng): string {
  const known = knownParams(op.path, "query");
  if (known !== undefined) return known;
  return op.queryParams
    .filter((param) => param.required)
    .map((param) => `${encodeURIComponent(param.name)}=${encodeURIComponent(String(sample(doc, param.schema, rng)))}`)
    .join("&");
}

function oddQuery(op: Operation, rng: Rng): string {
  const parts = [rng.pick(ODD_QUERY)];
  for (const param of op.queryParams) {
    const value = rng.pick<unknown>([...ODD_NUMBERS, HUGE.slice(0, 5000), "", "[]", "{}", "true", CONTROL_QUERY]);
    parts.push(`${encodeURIComponent(param.name)}=${value === CONTROL_QUERY ? value : encodeURIComponent(String(value))}`);
  }
  return parts.join("&");
}

const mutateField = (base: unknown, key: string, value: unknown) =>
  base && typeof base === "object" && !Array.isArray(base) ? { ...(base as object), [key]: value } : value;

function fieldsOf(doc: Doc, body: Schema | undefined): Array<[string, Schema]> {
  const schema = flatten(doc, body);
  return Object.entries(schema.properties ?? {}).map(([key, value]) => [key, resolve(doc, value as Schema)]);
}

function stringFields(fields: Array<[string, Schema]>) {
  const strings = fields.filter(([, s]) => s.type === "string" || (Array.isArray(s.type) && s.type.includes("string")));
  return strings.length > 0 ? strings : fields;
}

function numberFields(fields: Array<[string, Schema]>) {
  const numbers = fields.filter(([, s]) => ["integer", "number"].includes(s.type) || /^\d+$/.test(String(s.example ?? "")) || s.pattern);
  return numbers.length > 0 ? numbers : fields;
}

/**
 * The fixed cases of one operation: fourteen, plus one per text field of the body (at most
 * MAX_FIELD_SWEEP), their details chosen by a PRNG seeded with the operation's method and path.
 */
function casesFor(doc: Doc, op: Operation): Case[] {
  const rng = prng(hashString(`${op.method} ${op.path}`));
  // body fields named like a path parameter carry the same value (routes check they match)
  knownBodyValue = (name) => knownParams(op.path, ["podId", "subnetId", "sessionId"].includes(name) ? name : `body:${name}`);
  const hasBody = op.body !== undefined || op.method !== "GET";
  const base = op.body !== undefined ? sample(doc, op.body, rng) : {};
  const fields = fieldsOf(doc, op.body);
  const json = (value: unknown) => JSON.stringify(value);
  const cases: Case[] = [];
  const add = (label: string, parts: Partial<Case> & { body?: string }, authed = true) =>
    cases.push({
      label,
      path: parts.path ?? pathWith(op, rng, false),
      query: parts.query ?? validQuery(doc, op, rng),
      body: hasBody ? parts.body : undefined,
      contentType: hasBody ? (parts.contentType ?? "application/json") : undefined,
      authed,
    });
  const field = () => (fields.length > 0 ? rng.pick(fields)[0] : "unexpected");

  add("invalid JSON", { body: rng.pick(['{"a":', "{'single': 1}", "[1,2", "\u0000", "nul", '{"a":1}}', "{\"x\": NaN}"]) });
  add("array instead of object", { body: json([base, 1, "x"]) });
  add("missing fields", { body: json({}) });
  {
    const key = field();
    add(`wrong type for ${key}`, { body: json(mutateField(base, key, rng.pick(WRONG_VALUES))) });
  }
  {
    const key = rng.pick(stringFields(fields))?.[0] ?? "unexpected";
    add(`huge string in ${key}`, { body: json(mutateField(base, key, HUGE)) });
  }
  {
    const key = rng.pick(stringFields(fields))?.[0] ?? "unexpected";
    add(`control characters in ${key}`, { body: json(mutateField(base, key, CONTROL)), query: `q=${CONTROL_QUERY}` });
  }
  {
    const key = rng.pick(numberFields(fields))?.[0] ?? "unexpected";
    const value = rng.pick(ODD_NUMBERS);
    add(`odd number ${String(value)} in ${key}`, { body: json(mutateField(base, key, value)) });
  }
  {
    const bad = rng.pick(BAD_PATH);
    add(`bad path params ${bad}`, { path: pathWith(op, rng, true, bad), body: json(base) });
  }
  add("weird query params", { query: oddQuery(op, rng), body: json(base) });
  {
    // several fields broken at once
    let mixed: unknown = base;
    for (let i = 0; i < 3; i++) mixed = mutateField(mixed, field(), rng.pick([...WRONG_VALUES, HUGE.slice(0, 2048), CONTROL, ...ODD_NUMBERS]));
    add("several fields broken", { body: json(mixed), path: pathWith(op, rng, rng.next() < 0.5) });
  }
  add("plausible body, wrong content type", { body: json(base), contentType: rng.pick(["text/plain", "application/x-www-form-urlencoded", "multipart/form-data"]) });
  {
    // a real transaction of the devnet that is not the one the route expects
    const unrelated = knownParams(op.path, "unrelatedTxHash");
    const key = fields.find(([name]) => /hash$/i.test(name))?.[0];
    add("unrelated real transaction", { body: json(key && unrelated ? mutateField(base, key, unrelated) : base) });
  }
  // NUL and control characters in each text field in turn (PostgreSQL text cannot hold NUL)
  for (const [key] of fields.filter(([, s]) => s.type === "string").slice(0, MAX_FIELD_SWEEP)) {
    add(`control characters in ${key} (sweep)`, { body: json(mutateField(base, key, `${String((base as Record<string, unknown>)?.[key] ?? "")}${CONTROL}`)) });
  }
  add("plausible body without credentials", { body: json(base) }, false);
  add("invalid JSON without credentials", { body: "{", path: pathWith(op, rng, true) }, false);
  return cases;
}

// ------------------------------------------------------------------ the apps

type AppLike = { request: (path: string, init?: RequestInit) => Response | Promise<Response> };

interface Surface {
  name: string;
  app: AppLike;
  /** Credential headers for an operation's security scheme names (or the surface's usual one). */
  credentials(security: string[]): Record<string, string>;
  params: KnownParams;
}

let harness: PlatformHarness;
let stopHarness: (() => Promise<void>) | undefined;
let chat: ChatTestServer | undefined;
let postSource: LocalServer | undefined;
let evalStorageDir: string | undefined;
const surfaces: Surface[] = [];

beforeAll(async () => {
  ({ harness, stop: stopHarness } = await startPlatformHarness({ seed: true, indexer: true }));
  const h = harness;

  // Platform API: an IdP cookie, an agent's credential, the stats key.
  const curator = roleAccount("curatorA");
  const session = await h.signIn("fuzz-user", curator, "fuzzer");
  await h.fund(curator);
  const datanet = await publishDatanet(h, session, curator, "Fuzzing");
  const pod = await mintedPod(h, session, curator, datanet);
  await listed(h, pod);
  const agent = await registerAgent(h, { name: "Fuzzer", description: "Sends malformed requests" }, { funded: true });
  const unrelated = await h.write(curator, "CoreToken", "approve", [curator.address, 1n]);
  await h.caughtUp();
  const platformParams: Record<string, string> = {
    agentId: agent.id,
    subnetId: datanet.id,
    podId: pod.id,
    packageId: "monthly",
    epoch: "1",
    epochId: "1",
    address: curator.address,
    unrelatedTxHash: unrelated.transactionHash,
  };
  surfaces.push({
    name: "platform",
    app: h.app,
    credentials(security) {
      const headers: Record<string, string> = {};
      if (security.length === 0 || security.includes("idpCookie")) headers.Cookie = session.cookie;
      if (security.includes("agentBearer")) headers.Authorization = `Bearer ${agent.credential}`;
      else if (security.includes("statsKey")) headers.Authorization = `Bearer ${STATS_KEY}`;
      return headers;
    },
    params: (opPath, name) => (name === "id" ? (/\/pods\/\{id\}/.test(opPath) ? pod.id : datanet.id) : platformParams[name]),
  });

  // Chat server on the same database and indexer views, with the devnet and a (silent) post source.
  postSource = await startFakePostSource(
    new Map([["4242", { text: "Research note: an open dataset of labelled street images, with the scripts to rebuild it." }]]),
  );
  chat = await startChatApp({
    database: h.database,
    protocol: protocolOf(h.devnet.deployment, h.devnet.chain.rpcUrl),
    viewsSchema: "chain",
    apiEnv: h.indexer ? { PONDER_URL: h.indexer.url } : {},
    env: { CHAT_OEMBED_URL: `${postSource.url}/oembed` },
  });
  // the wallet that owns the fuzzing pod, so claims get past the ownership check
  const token = await signIn(chat.app, curator);
  const started = await chat.app.request("/chat", {
    method: "POST",
    headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
    body: JSON.stringify({ message: "How do I publish a pod?" }),
  });
  expect(started.status).toBe(200);
  const { sessionId } = (await started.json()) as { sessionId: string };
  surfaces.push({
    name: "chat",
    app: chat.app,
    credentials: () => ({ Authorization: `Bearer ${token}` }),
    params: (_path, name) =>
      ({
        podId: String(pod.tokenId),
        sessionId,
        "body:tweetUrl": `https://x.com/alice/status/4242`,
        "body:subnetHint": "Fuzzing",
      })[name],
  });

  // Evaluation API on the same database.
  evalStorageDir = fs.mkdtempSync(path.join(os.tmpdir(), "fuzz-eval-"));
  const evalConfig = loadEvalConfig({ EVAL_STORAGE_DIR: evalStorageDir, EVAL_WORKER_ENABLED: "false" });
  const evalApp = createEvalApp({
    config: loadConfig({ DATABASE_URL: h.database.url, LOG_LEVEL: "silent", PONDER_VIEWS_SCHEMA: "chain" }),
    pool: h.store.pool,
    db: h.store.db,
    logger: createLogger("silent"),
    rateLimiter: createMemoryRateLimiter({ points: 100_000, windowSeconds: 60, keyPrefix: "fuzz-eval" }),
    keyIssuanceLimiter: createMemoryRateLimiter({ points: 100_000, windowSeconds: 3600, keyPrefix: "fuzz-eval-keys" }),
    evalConfig,
    storage: createAttachmentStorage(evalConfig),
  });
  // The evaluation is another account's, so the fuzzer's key may assess it.
  const { key } = await issueKeyForAccountName(h.store.db, "fuzzer");
  const { key: requesterKey } = await issueKeyForAccountName(h.store.db, "requester");
  const upload = await evalApp.request("/api/v1/agents/eval-requests/attachments", {
    method: "POST",
    headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
    body: JSON.stringify({ filename: "chart.png", contentType: "image/png" }),
  });
  expect(upload.status).toBe(200);
  const uploadUrl = new URL(((await upload.json()) as { uploadUrl: string }).uploadUrl);
  const uploadKey = decodeURIComponent(uploadUrl.pathname.split("/").pop()!);
  const submitted = await evalApp.request("/api/v1/agents/eval-requests/submit", {
    method: "POST",
    headers: { Authorization: `Bearer ${requesterKey}`, "Content-Type": "application/json" },
    body: JSON.stringify({ type: "answer", payload: "The capital of France is Paris.", criteria: ["Correctness", "Clarity"] }),
  });
  expect(submitted.status).toBe(201);
  const { evalId } = (await submitted.json()) as { evalId: string };
  surfaces.push({
    name: "eval",
    app: evalApp,
    params: (opPath, name) => {
      if (name === "evalId") return evalId;
      // a real signed upload URL: its key and signature
      if (opPath.includes("/storage/uploads/")) return name === "key" ? uploadKey : name === "query" ? uploadUrl.search.slice(1) : undefined;
      return undefined;
    },
    credentials: (security): Record<string, string> =>
      security.includes("ApiKeyHeader") && !security.includes("ApiKeyBearer") ? { "x-api-key": key } : { Authorization: `Bearer ${key}` },
  });
}, 300_000);

afterAll(async () => {
  await chat?.close().catch(() => undefined);
  await postSource?.close().catch(() => undefined);
  await stopHarness?.();
  if (evalStorageDir) fs.rmSync(evalStorageDir, { recursive: true, force: true });
});

async function fuzz(surface: Surface): Promise<{ sent: number; operations: number; failures: string[] }> {
  const response = await surface.app.request("/openapi.json");
  expect(response.status).toBe(200);
  const doc = (await response.json()) as Doc;
  const operations = operationsOf(doc);
  const failures: string[] = [];
  let sent = 0;
  for (const op of operations) {
    for (const c of casesFor(doc, op)) {
      const headers: Record<string, string> = c.authed ? surface.credentials(op.security) : {};
      if (c.contentType) headers["Content-Type"] = c.contentType;
      const url = `${c.path}${c.query ? `?${c.query}` : ""}`;
      const what =
        `${surface.name} ${op.method} ${op.path} [${c.label}${c.authed ? "" : ", no credentials"}] ${url.slice(0, 160)}` +
        (c.body === undefined ? "" : ` body ${JSON.stringify(c.body.slice(0, 160))}`);
      let res: Response;
      try {
        res = await surface.app.request(url, { method: op.method, headers, body: c.body });
      } catch (error) {
        failures.push(`${what} → threw ${(error as Error).message}`);
        continue;
      }
      sent++;
      if (res.status === 200 && res.headers.get("content-type")?.startsWith("text/event-stream")) {
        // a stream (GET /events) accepted its parameters: it runs until the client leaves
        await res.body?.cancel();
        continue;
      }
      const text = await res.text();
      if (res.status >= 500) {
        failures.push(`${what} → ${res.status} ${text.slice(0, 200)}`);
        continue;
      }
      if (res.status >= 400) {
        let body: unknown;
        try {
          body = JSON.parse(text);
        } catch {
          body = undefined;
        }
        const keys = body && typeof body === "object" && !Array.isArray(body) ? Object.keys(body) : [];
        if (keys.length !== 1 || keys[0] !== "error" || typeof (body as { error: unknown }).error !== "string") {
          failures.push(`${what} → ${res.status} not a flat error body: ${text.slice(0, 200)}`);
        }
      }
    }
  }
  return { sent, operations: operations.length, failures };
}

describe("malformed requests", () => {
  for (const name of ["platform", "chat", "eval"]) {
    it(`${name}: answers malformed requests to every route with a flat 4xx, never a 5xx`, async () => {
      const surface = surfaces.find((s) => s.name === name)!;
      knownParams = surface.params;
      const { sent, operations, failures } = await fuzz(surface);
      expect(operations).toBeGreaterThan(3);
      expect(sent).toBeGreaterThanOrEqual(operations * 10);
      expect(failures, failures.join("\n")).toEqual([]);
    });
  }
});
