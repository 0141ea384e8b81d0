/**
 * PostgreSQL streaming replicas for reads, with real components: a primary of the test's own and
 * a hot standby made from it with pg_basebackup (test/support/pg-standby.ts), two API processes
 * with DATABASE_READ_URL, nginx in front. It shows: anonymous reads answered by the standby
 * (counted on the standby itself), a write through one API replica read through the other, a
 * standby lagging past the bound skipped and reported by /ready, and the standby killed under
 * load: no 5xx, no acknowledged write lost.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runMigrations } from "../../api/db/migrate";
import { type PgCluster, type PrimaryCluster, startPrimary, startStandby, waitForReplay } from "../support/pg-standby";
import { type ApiReplica, findNginx, type NginxProxy, startApiReplica, startNginx, stopProcess } from "./support";

const MAX_LAG_MS = 1_000;
const POLL_MS = 250;

let dir: string;
let primary: PrimaryCluster;
let standby: PgCluster;
let replicas: ApiReplica[] = [];
let proxy: NginxProxy | undefined;

beforeAll(async () => {
  const nginx = findNginx();
  if (!nginx) throw new Error("the scale test needs nginx (apt-get install nginx): none on PATH or in /usr/sbin");
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "datamarket-replicas-"));
  fs.chmodSync(dir, 0o755); // nginx's workers (nobody, when started as root) use its temp folders
  primary = await startPrimary();
  standby = await startStandby(primary);
  await primary.createDatabase("app");
  await runMigrations(primary.url("app"));
  await waitForReplay(primary, standby);
  const env = {
    DATABASE_URL: primary.url("app"),
    DATABASE_READ_URL: standby.url("app"),
    DATABASE_READ_MAX_LAG_MS: String(MAX_LAG_MS),
    DATABASE_READ_POLL_MS: String(POLL_MS),
    TRUST_PROXY: "true",
    RATE_LIMIT_POINTS: "100000",
    EVAL_KEYS_RATE_LIMIT_POINTS: "100000",
    PONDER_URL: "http://127.0.0.1:9",
    EVAL_WORKER_ENABLED: "false",
    EVAL_STORAGE_DIR: path.join(dir, "attachments"),
    EVAL_URL_SIGNING_SECRET: "scale-test-signing-secret-0123456789abcdef",
    LOG_LEVEL: "warn",
    LOG_FORMAT: "json",
  };
  replicas = await Promise.all(["a", "b"].map((name) => startApiReplica(name, dir, env)));
  proxy = await startNginx(nginx, dir, replicas);
});

afterAll(async () => {
  await proxy?.stop();
  await Promise.all(replicas.map((r) => stopProcess(r.process)));
  await standby?.stop();
  await primary?.stop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

let clients = 0;
const newClient = () => `198.51.100.${++clients}`;

interface Answer {
  status: number;
  headers: Headers;
  body: Record<string, unknown>;
}

async function call(port: number, route: string, init: RequestInit = {}): Promise<Answer> {
  const response = await fetch(`http://127.0.0.1:${port}${route}`, {
    ...init,
    headers: {
      "content-type": "application/json",
      "x-forwarded-for": newClient(),
      ...(init.headers as Record<string, string>),
    },
  });
  const text = await response.text();
  let body: Record<string, unknown>;
  try {
    body = text ? (JSON.parse(text) as Record<string, unknown>) : {};
  } catch {
    body = { notJson: text.slice(0, 200) };
  }
  return { status: response.status, headers: response.headers, body };
}

const issueKey = (port: number) =>
  call(port, "/api/v1/keys", { method: "POST", body: JSON.stringify({ name: "replicas" }) });
const pending = (port: number, key: string, cookie?: string) =>
  call(port, "/api/v1/agents/eval-requests/pending", {
    headers: { authorization: `Bearer ${key}`, ...(cookie ? { cookie } : {}) },
  });
/** An anonymous read: /health reads the chain views' catalog (on the standby when it can). */
const health = (port: number) => call(port, "/health");
const ready = (port: number) => call(port, "/ready");

/** Transactions the standby has committed in the app database (read-only ones: every statement there). */
async function standbyTransactions(): Promise<number> {
  const rows = await standby.query<{ n: string }>(
    "SELECT xact_commit::text AS n FROM pg_stat_database WHERE datname = 'app'",
    [],
    "app",
  );
  return Number(rows[0]?.n ?? 0);
}

/** Request statements the two API processes sent to each source (their /metrics). */
async function routed(): Promise<Record<"primary" | "replica" | "fallback", number>> {
  const sum = { primary: 0, replica: 0, fallback: 0 };
  for (const replica of replicas) {
    const text = await (await fetch(`http://127.0.0.1:${replica.eval}/metrics`)).text();
    for (const source of ["primary", "replica", "fallback"] as const) {
      const value = new RegExp(`^datamarket_db_routed_statements\\{source="${source}"\\} (\\d+)`, "m").exec(text)?.[1];
      sum[source] += Number(value ?? Number.NaN);
    }
  }
  return sum;
}

/** The replica entry of /ready's X-Read-Replicas: `host:port/app;state=up;lag_ms=0`. */
function replicaReport(answer: Answer): { state?: string; lagMs?: number } {
  const header = answer.headers.get("x-read-replicas") ?? "";
  const state = /state=(\w+)/.exec(header)?.[1];
  const lag = /lag_ms=(\d+)/.exec(header)?.[1];
  return { state, lagMs: lag === undefined ? undefined : Number(lag) };
}

async function until(condition: () => Promise<boolean>, within = 20_000): Promise<void> {
  const deadline = Date.now() + within;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe("a hot standby behind two API replicas and nginx", () => {
  it("answers anonymous reads from the standby: the API's counters and the standby itself count them", async () => {
    await until(
      async () =>
        replicaReport(await ready(replicas[0]!.eval)).state === "up" &&
        replicaReport(await ready(replicas[1]!.eval)).state === "up",
    );
    const [routedBefore, standbyBefore] = [await routed(), await standbyTransactions()];
    const reads = 400;
    const answers: Answer[] = [];
    for (let i = 0; i < reads / 20; i++)
      answers.push(...(await Promise.all(Array.from({ length: 20 }, () => health(proxy!.eval)))));
    expect(answers.map((a) => a.status)).toEqual(Array(reads).fill(200));
    // each batch of concurrent /health shares one catalog read (api/http/readiness.ts): every one
    // of them went to the standby, none to the primary
    const routedAfter = await routed();
    const toReplica = routedAfter.replica - routedBefore.replica;
    expect(toReplica).toBeGreaterThanOrEqual(reads / 20);
    expect(routedAfter.primary - routedBefore.primary).toBe(0);
    expect(routedAfter.fallback - routedBefore.fallback).toBe(0);
    // PostgreSQL publishes a backend's counts within a second of activity, or 10 s after it idles
    await until(async () => (await standbyTransactions()) - standbyBefore >= toReplica, 60_000);
    console.log(`${reads} anonymous reads through the proxy: ${toReplica} statements, all on the standby`);
  });

  it("a write through API replica A is read through API replica B (and through the proxy) at once", async () => {
    const [a, b] = replicas as [ApiReplica, ApiReplica];
    for (let i = 0; i < 10; i++) {
      const issued = await issueKey(a.eval);
      expect(issued.status).toBe(201);
      const position = issued.headers.get("x-read-after");
      expect(position).toMatch(/^[0-9A-F]+\/[0-9A-F]+$/);
      expect(issued.headers.get("set-cookie")).toContain(`dm_read_after=${position}`);
      const cookie = `dm_read_after=${position}`;
      expect((await pending(b.eval, issued.body.key as string, cookie)).status).toBe(200);
      expect((await pending(b.eval, issued.body.key as string)).status).toBe(200);
      expect((await pending(proxy!.eval, issued.body.key as string)).status).toBe(200);
    }
  });

  it("skips a standby lagging past the bound, /ready says so and stays 200", async () => {
    // the indexer's views, as far as /ready looks (no indexer runs here)
    await primary.query("CREATE SCHEMA IF NOT EXISTS chain", [], "app");
    await primary.query(
      "CREATE TABLE IF NOT EXISTS chain._ponder_checkpoint (chain_name text PRIMARY KEY, latest_checkpoint varchar(75) NOT NULL)",
      [],
      "app",
    );
    await primary.query(
      "INSERT INTO chain._ponder_checkpoint VALUES ('base', '1000') ON CONFLICT DO NOTHING",
      [],
      "app",
    );
    await until(async () => (await ready(replicas[0]!.eval)).status === 200);
    const readyBefore = (await ready(replicas[0]!.eval)).status;
    await standby.query("SELECT pg_wal_replay_pause()", [], "app");
    try {
      expect((await issueKey(proxy!.eval)).status).toBe(201); // the primary moves on
      await until(async () => replicaReport(await ready(replicas[0]!.eval)).state === "lagging");
      const lagging = await ready(replicas[0]!.eval);
      expect(lagging.status).toBe(readyBefore);
      expect(replicaReport(lagging).lagMs).toBeGreaterThan(MAX_LAG_MS);
      // reads go on, from the primary
      const before = await standbyTransactions();
      const answers = await Promise.all(Array.from({ length: 50 }, () => health(proxy!.eval)));
      expect(answers.map((a) => a.status)).toEqual(Array(50).fill(200));
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      // the pollers' statements only (2 processes × 4 a second × ~2 s), not the 50 reads
      expect((await standbyTransactions()) - before).toBeLessThan(50);
    } finally {
      await standby.query("SELECT pg_wal_replay_resume()", [], "app");
    }
    await until(async () => replicaReport(await ready(replicas[0]!.eval)).state === "up");
  });

  it("the standby killed under load: no 5xx, every acknowledged write stored, /ready says down and stays 200", async () => {
    const readyBefore = (await ready(replicas[0]!.eval)).status;
    const answers: Answer[] = [];
    const acknowledged: string[] = [];
    const lags: number[] = [];
    let stop = false;
    const worker = async () => {
      while (!stop) {
        const issued = await issueKey(proxy!.eval);
        answers.push(issued);
        if (issued.status === 201) {
          acknowledged.push(issued.body.accountId as string);
          answers.push(await pending(proxy!.eval, issued.body.key as string));
        }
        answers.push(await health(proxy!.eval));
      }
    };
    const sampler = async () => {
      while (!stop) {
        const report = replicaReport(await ready(replicas[0]!.eval));
        if (report.state === "up" && report.lagMs !== undefined) lags.push(report.lagMs);
        await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      }
    };
    const workers = [...Array.from({ length: 8 }, worker), sampler()];
    while (answers.length < 300) await new Promise((resolve) => setTimeout(resolve, 20));
    await standby.kill("SIGKILL");
    const killedAt = answers.length;
    while (answers.length < killedAt + 300) await new Promise((resolve) => setTimeout(resolve, 20));
    stop = true;
    await Promise.all(workers);
    console.log(
      `standby lag under load (before the kill): max ${Math.max(...lags)} ms over ${lags.length} samples (poll ${POLL_MS} ms)`,
    );
    expect(answers.filter((a) => a.status >= 500)).toEqual([]);
    const stored = await primary.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM offchain.eval_accounts WHERE id = ANY($1::uuid[])",
      [acknowledged],
      "app",
    );
    expect(stored[0]!.n).toBe(acknowledged.length);
    const down = await ready(replicas[0]!.eval);
    expect(replicaReport(down).state).toBe("down");
    expect(down.status).toBe(readyBefore);
  });
});
