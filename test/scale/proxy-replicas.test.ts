/**
 * Past one machine: nginx in front of three API replicas (`npm run api` processes) sharing one
 * PostgreSQL database and one Redis. A write through one replica is read through the others, a
 * budget of N requests spread over the replicas admits exactly N, and a replica killed while
 * requests flow costs no acknowledged write and no 5xx.
 */
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runMigrations } from "../../api/db/migrate";
import { type FreshDatabase, useFreshDatabase } from "../support/database";
import { type ApiReplica, findNginx, type NginxProxy, startApiReplica, startNginx, stopProcess } from "./support";

const REDIS_URL = "redis://127.0.0.1:6379";
const BUDGET = 40;

let dir: string;
let database: FreshDatabase;
let replicas: ApiReplica[] = [];
let proxy: NginxProxy | undefined;

beforeAll(async () => {
  const nginx = findNginx();
  if (!nginx) throw new Error("the scale test needs nginx (apt-get install nginx): none on PATH or in /usr/sbin");
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "datamarket-scale-"));
  fs.chmodSync(dir, 0o755); // nginx's workers (nobody, when started as root) use its temp folders
  database = await useFreshDatabase();
  await runMigrations(database.url);
  const env = {
    DATABASE_URL: database.url,
    REDIS_URL,
    REDIS_KEY_PREFIX: `scale-${randomUUID()}`,
    // a command slow on a busy machine must not count as Redis down (fail-open would count per replica)
    REDIS_COMMAND_TIMEOUT_MS: "10000",
    TRUST_PROXY: "true",
    RATE_LIMIT_POINTS: String(BUDGET),
    EVAL_KEYS_RATE_LIMIT_POINTS: "100000",
    PONDER_URL: "http://127.0.0.1:9",
    EVAL_WORKER_ENABLED: "false",
    EVAL_STORAGE_DIR: path.join(dir, "attachments"),
    EVAL_URL_SIGNING_SECRET: "scale-test-signing-secret-0123456789abcdef",
    LOG_LEVEL: "warn",
    LOG_FORMAT: "json",
  };
  replicas = await Promise.all(["a", "b", "c"].map((name) => startApiReplica(name, dir, env)));
  proxy = await startNginx(nginx, dir, replicas);
});

afterAll(async () => {
  await proxy?.stop();
  await Promise.all(replicas.map((r) => stopProcess(r.process)));
  await database?.drop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

let clients = 0;
/** A client address of its own (nginx takes it from X-Forwarded-For, as behind a CDN). */
const newClient = () => `198.51.100.${++clients}`;

interface Answer {
  status: number;
  upstream: string | null;
  body: Record<string, unknown>;
}

async function call(port: number, route: string, client: string, init: RequestInit = {}): Promise<Answer> {
  const response = await fetch(`http://127.0.0.1:${port}/api/v1${route}`, {
    ...init,
    headers: { "content-type": "application/json", "x-forwarded-for": client, ...(init.headers as Record<string, string>) },
  });
  const text = await response.text();
  let body: Record<string, unknown>;
  try {
    body = text ? (JSON.parse(text) as Record<string, unknown>) : {};
  } catch {
    body = { notJson: text.slice(0, 200) }; // the proxy's own error page
  }
  return { status: response.status, upstream: response.headers.get("x-upstream"), body };
}

const issueKey = (port: number, client: string) => call(port, "/keys", client, { method: "POST", body: JSON.stringify({ name: "scale" }) });
const pending = (port: number, client: string, key: string) =>
  call(port, "/agents/eval-requests/pending", client, { headers: { authorization: `Bearer ${key}` } });

describe("three API replicas behind nginx, budgets in Redis", () => {
  it("a key issued through one replica authenticates at once through every other one and through the proxy", async () => {
    const client = newClient();
    const [a, b, c] = replicas as [ApiReplica, ApiReplica, ApiReplica];
    const issued = await issueKey(a.eval, client);
    expect(issued.status).toBe(201);
    const key = issued.body.key as string;
    expect((await pending(b.eval, client, key)).status).toBe(200);
    expect((await pending(c.eval, client, key)).status).toBe(200);
    const viaProxy = await Promise.all(Array.from({ length: 6 }, () => pending(proxy!.eval, client, key)));
    expect(viaProxy.map((answer) => answer.status)).toEqual(Array(6).fill(200));
  });

  it(`a budget of ${BUDGET} requests per client admits exactly ${BUDGET} spread over the three replicas`, async () => {
    const client = newClient();
    const answers = await Promise.all(Array.from({ length: BUDGET * 3 }, () => call(proxy!.eval, "/agents/eval-requests/pending", client)));
    const admitted = answers.filter((answer) => answer.status !== 429);
    expect(admitted).toHaveLength(BUDGET);
    // unauthenticated: the admitted ones are 401s, the rest 429s; nothing else
    expect(new Set(admitted.map((answer) => answer.status))).toEqual(new Set([401]));
    expect(answers.filter((answer) => answer.status === 429)).toHaveLength(BUDGET * 2);
    // every replica took part
    expect(new Set(answers.map((answer) => answer.upstream)).size).toBe(3);
  });

  /**
   * Eight clients each issue a key (a write) and read with it (a read), over and over, through the
   * proxy; once `victim` has answered some of them it is stopped with `signal`, and the load runs on
   * for 200 more answers.
   */
  async function loadWhileStopping(victim: ApiReplica, signal: NodeJS.Signals) {
    const writes: Answer[] = [];
    const reads: Answer[] = [];
    const acknowledged: string[] = [];
    let stop = false;
    const total = () => writes.length + reads.length;
    const worker = async () => {
      while (!stop) {
        const client = newClient();
        const issued = await issueKey(proxy!.eval, client);
        writes.push(issued);
        if (issued.status === 201) {
          acknowledged.push(issued.body.accountId as string);
          reads.push(await pending(proxy!.eval, client, issued.body.key as string));
        }
      }
    };
    const workers = Array.from({ length: 8 }, worker);
    const servedByVictim = () => [...writes, ...reads].filter((answer) => answer.upstream?.endsWith(`:${victim.eval}`)).length;
    while (servedByVictim() < 10) await new Promise((resolve) => setTimeout(resolve, 20));
    await stopProcess(victim.process, signal);
    const stoppedAt = total();
    while (total() < stoppedAt + 200) await new Promise((resolve) => setTimeout(resolve, 20));
    stop = true;
    await Promise.all(workers);
    const pool = new pg.Pool({ connectionString: database.url, max: 1 });
    try {
      const { rows } = await pool.query<{ n: number }>("SELECT count(*)::int AS n FROM offchain.eval_accounts WHERE id = ANY($1::uuid[])", [
        acknowledged,
      ]);
      return { writes, reads, acknowledged, stored: rows[0]!.n };
    } finally {
      await pool.end();
    }
  }

  it("a replica killed (SIGKILL) under load: every acknowledged write is stored, no read is a 5xx", async () => {
    const { writes, reads, acknowledged, stored } = await loadWhileStopping(replicas[2]!, "SIGKILL");
    expect(stored).toBe(acknowledged.length);
    // reads are retried on the next replica by the proxy; every read answered 200
    expect(reads.filter((answer) => answer.status !== 200)).toEqual([]);
    // A write in flight on the killed process cannot be retried elsewhere (it may have committed):
    // the proxy answers it 502, at most one per client; every other write is acknowledged.
    const failed = writes.filter((answer) => answer.status !== 201);
    expect(failed.every((answer) => answer.status === 502)).toBe(true);
    expect(failed.length).toBeLessThanOrEqual(8);
  });

  // nginx (open source) learns of a stopping replica only by failures: a POST it sends on a kept-alive
  // connection just as the server closes it cannot be retried elsewhere (it may have committed).
  // Behind HAProxy's active /ready checks, SHUTDOWN_DRAIN_MS avoids even that (docs/scaling.md).
  it("a replica stopped (SIGTERM, as an orchestrator does) under load: every acknowledged write is stored, no read is a 5xx", async () => {
    const { writes, reads, acknowledged, stored } = await loadWhileStopping(replicas[1]!, "SIGTERM");
    expect(stored).toBe(acknowledged.length);
    expect(reads.filter((answer) => answer.status !== 200)).toEqual([]);
    const failed = writes.filter((answer) => answer.status !== 201);
    expect(failed.map((answer) => answer.status).filter((status) => status !== 502)).toEqual([]);
    expect(failed.length).toBeLessThanOrEqual(8);
  });
});
