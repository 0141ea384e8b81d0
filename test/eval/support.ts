import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { loadConfig } from "../../api/config";
import { createDb, type Database } from "../../api/db/client";
import { runMigrations } from "../../api/db/migrate";
import { createEvalApp } from "../../api/eval/app";
import { loadEvalConfig, type EvalConfig } from "../../api/eval/config";
import { issueKeyForAccountName } from "../../api/eval/repositories/keys";
import { createAttachmentStorage, type AttachmentStorage } from "../../api/eval/storage/index";
import { createMemoryRateLimiter } from "../../api/http/rate-limit";
import { createLogger } from "../../api/http/logger";
import { useFreshDatabase, type FreshDatabase } from "../support/database";

export const BASE = "/api/v1";
export const T0 = new Date("2030-01-01T00:00:00.000Z");

/** A clock the tests move by hand. */
export class TestClock {
  current: Date;
  constructor(start: Date = T0) {
    this.current = new Date(start);
  }
  now = (): Date => new Date(this.current);
  advance(ms: number): void {
    this.current = new Date(this.current.getTime() + ms);
  }
  advanceMinutes(minutes: number): void {
    this.advance(minutes * 60_000);
  }
}

export interface EvalHarness {
  database: FreshDatabase;
  store: Database;
  storageDir: string;
  evalConfig: EvalConfig;
  storage: AttachmentStorage;
  clock: TestClock;
  app: ReturnType<typeof createEvalApp>;
  /** Builds another app on the same database (other settings). */
  buildApp(env?: Record<string, string>, extra?: BuildExtra): ReturnType<typeof createEvalApp>;
  close(): Promise<void>;
}

export interface BuildExtra {
  keyIssuancePoints?: number;
  /** Settings of api/config.ts (e.g. TRUST_PROXY). */
  apiEnv?: Record<string, string>;
}

export async function startEvalHarness(env: Record<string, string> = {}): Promise<EvalHarness> {
  const database = await useFreshDatabase();
  await runMigrations(database.url);
  const store = createDb(database.url);
  const storageDir = fs.mkdtempSync(path.join(os.tmpdir(), "eval-attachments-"));
  const clock = new TestClock();
  const config = loadConfig({ DATABASE_URL: database.url, LOG_LEVEL: "silent" });

  const configFor = (overrides: Record<string, string>) =>
    loadEvalConfig({ EVAL_STORAGE_DIR: storageDir, EVAL_WORKER_ENABLED: "false", ...env, ...overrides });
  const evalConfig = configFor({});
  const storage = createAttachmentStorage(evalConfig);

  const buildApp = (overrides: Record<string, string> = {}, extra: BuildExtra = {}) =>
    createEvalApp({
      config: extra.apiEnv ? loadConfig({ DATABASE_URL: database.url, LOG_LEVEL: "silent", ...extra.apiEnv }) : config,
      pool: store.pool,
      db: store.db,
      logger: createLogger("silent"),
      rateLimiter: createMemoryRateLimiter({ points: 100_000, windowSeconds: 60, keyPrefix: "eval-test" }),
      keyIssuanceLimiter: createMemoryRateLimiter({
        points: extra.keyIssuancePoints ?? 1_000,
        windowSeconds: 3600,
        keyPrefix: "eval-keys-test",
      }),
      evalConfig: configFor(overrides),
      storage: Object.keys(overrides).length === 0 ? storage : undefined,
      now: clock.now,
    });

  return {
    database,
    store,
    storageDir,
    evalConfig,
    storage,
    clock,
    app: buildApp(),
    buildApp,
    async close() {
      await store.pool.end();
      await database.drop();
      fs.rmSync(storageDir, { recursive: true, force: true });
    },
  };
}

export async function newKey(h: EvalHarness, account: string): Promise<string> {
  return (await issueKeyForAccountName(h.store.db, account)).key;
}

type Json = Record<string, unknown>;

export interface Call {
  status: number;
  body: Json;
  headers: Headers;
}

export async function call(
  app: EvalHarness["app"],
  method: string,
  url: string,
  options: { key?: string; body?: unknown; headers?: Record<string, string>; raw?: string } = {},
): Promise<Call> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key) headers.authorization = `Bearer ${options.key}`;
  let body: string | undefined;
  if (options.raw !== undefined) body = options.raw;
  else if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers["content-type"] ??= "application/json";
  }
  const response = await app.request(url.startsWith("http") ? url : `${BASE}${url}`, { method, headers, body });
  const text = await response.text();
  let parsed: Json = {};
  try {
    parsed = text ? (JSON.parse(text) as Json) : {};
  } catch {
    parsed = { raw: text };
  }
  return { status: response.status, body: parsed, headers: response.headers };
}

/** Asserts the one flat error body shape; returns its message. */
export function errorOf(result: Call): string {
  const keys = Object.keys(result.body);
  if (keys.length !== 1 || keys[0] !== "error" || typeof result.body.error !== "string") {
    throw new Error(`not a flat error body: ${JSON.stringify(result.body)}`);
  }
  return result.body.error;
}

export const validSubmit = (overrides: Json = {}): Json => ({
  type: "answer",
  payload: "The capital of France is Paris.",
  criteria: ["Correctness", "Clarity"],
  ...overrides,
});

export async function submit(h: EvalHarness, key: string, overrides: Json = {}, headers: Record<string, string> = {}) {
  return call(h.app, "POST", "/agents/eval-requests/submit", { key, body: validSubmit(overrides), headers });
}

export async function submitOk(h: EvalHarness, key: string, overrides: Json = {}): Promise<{ evalId: string; id: string }> {
  const result = await submit(h, key, overrides);
  if (result.status !== 201) throw new Error(`submit failed: ${result.status} ${JSON.stringify(result.body)}`);
  return result.body as { evalId: string; id: string };
}

export const validAssessment = (overrides: Json = {}): Json => ({
  agentName: "reviewer-bot",
  modelName: "model-x",
  score: 80,
  decision: "accept",
  critique: "Accurate and clear.",
  ...overrides,
});

export async function assess(h: EvalHarness, key: string, evalId: string, overrides: Json = {}) {
  return call(h.app, "POST", `/agents/eval-requests/${evalId}/assessments`, { key, body: validAssessment(overrides) });
}

export async function countRows(h: EvalHarness, table: string): Promise<number> {
  const result = await h.store.pool.query<{ n: string }>(`SELECT count(*) AS n FROM offchain.${table}`);
  return Number(result.rows[0]?.n);
}

// ------------------------------------------------------------------ files

/** Minimal valid headers of each accepted type (enough for magic-byte sniffing). */
export const PNG = Buffer.concat([
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  Buffer.from("0000000d49484452000000010000000108060000001f15c489", "hex"),
  Buffer.from("0000000d4944415478da63f8ffff3f0005fe02fea7d6a4a30000000049454e44ae426082", "hex"),
]);
export const JPEG = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10]), Buffer.from("JFIF\0\x01\x01\0\0\x01\0\x01\0\0"), Buffer.from([0xff, 0xd9])]);
export const WEBP = Buffer.concat([Buffer.from("RIFF"), Buffer.from([0x1a, 0, 0, 0]), Buffer.from("WEBPVP8 "), Buffer.alloc(14)]);
export const PDF = Buffer.from("%PDF-1.4\n1 0 obj\n<< /Type /Catalog >>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n");

/** `bytes` padded with zeros to exactly `size` bytes (the magic bytes stay first). */
export const padded = (bytes: Buffer, size: number) => Buffer.concat([bytes, Buffer.alloc(Math.max(0, size - bytes.length))]);

export async function requestUpload(h: EvalHarness, key: string, filename = "chart.png", contentType = "image/png") {
  return call(h.app, "POST", "/agents/eval-requests/attachments", { key, body: { filename, contentType } });
}

export async function put(h: EvalHarness, url: string, bytes: Uint8Array, method = "PUT") {
  const response = await h.app.request(url, { method, body: method === "GET" || method === "HEAD" ? undefined : bytes });
  const text = await response.text();
  return { status: response.status, body: text ? (JSON.parse(text) as Json) : {}, headers: response.headers };
}

/** Requests an upload URL, PUTs the bytes, returns the attachment reference for submit. */
export async function uploadAttachment(
  h: EvalHarness,
  key: string,
  bytes: Uint8Array,
  filename = "chart.png",
  contentType = "image/png",
) {
  const upload = await requestUpload(h, key, filename, contentType);
  if (upload.status !== 200) throw new Error(`upload request failed: ${JSON.stringify(upload.body)}`);
  const stored = await put(h, upload.body.uploadUrl as string, bytes);
  return { ref: { key: upload.body.key as string, filename, contentType }, stored };
}
