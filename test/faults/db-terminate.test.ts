import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { withAdvisoryLock } from "../../api/chat/services/advisory-lock";
import { SettlementWorker } from "../../api/eval/settlement/worker";
import { createLogger } from "../../api/http/logger";
import { createPostgresRateLimiter } from "../../api/http/rate-limit";
import { call, newKey, startEvalHarness, submitOk, validSubmit, type EvalHarness } from "../eval/support";

// Backends of the API's pool are terminated (pg_terminate_backend) while 16 clients submit
// evaluations: no answer but 201 or a flat 503, the process lives on, the pool heals, and every
// acknowledged submit is stored.

let h: EvalHarness;
let key: string;
let admin: pg.Client;
let databaseName: string;

beforeAll(async () => {
  h = await startEvalHarness();
  key = await newKey(h, "fault-submitter");
  databaseName = new URL(h.database.url).pathname.slice(1);
  admin = new pg.Client({ connectionString: h.database.url, application_name: "fault-injector" });
  await admin.connect();
});

afterAll(async () => {
  await admin?.end();
  await h?.close();
});

// pg_terminate_backend only signals: a backend sends its FATAL and exits a moment later, and the
// pool drops an idle client only once its socket has read that. Waiting for both makes each call a
// finished outage, so a test's next step never races the previous test's last termination.
async function terminateApiBackends(): Promise<number> {
  const result = await admin.query<{ pid: number }>(
    `SELECT pid FROM pg_stat_activity
      WHERE datname = $1 AND application_name LIKE 'datamarket%' AND pid <> pg_backend_pid()
        AND pg_terminate_backend(pid)`,
    [databaseName],
  );
  const pids = result.rows.map((row) => row.pid);
  for (let waited = 0; pids.length > 0 && waited < 5_000; waited += 10) {
    const alive = await admin.query("SELECT 1 FROM pg_stat_activity WHERE pid = ANY($1)", [pids]);
    if (alive.rowCount === 0) break;
    await sleep(10);
  }
  await sleep(20);
  return pids.length;
}

const CLIENTS = 16;

async function runUntilARoundSucceeds(worker: SettlementWorker): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await worker.runOnce();
      return;
    } catch (error) {
      if (attempt === 5) throw error;
      await sleep(100);
    }
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("database backends terminated under a write load", () => {
  it("answers 201 or flat 503, loses no acknowledged write, and heals", async () => {
    const statuses = new Map<number, number>();
    const unexpected: string[] = [];
    const acknowledged: string[] = [];
    let stop = false;
    let lastTermination = 0;
    let firstOkAfterLastTermination = 0;

    const client = async () => {
      while (!stop) {
        const result = await call(h.app, "POST", "/agents/eval-requests/submit", { key, body: validSubmit() });
        statuses.set(result.status, (statuses.get(result.status) ?? 0) + 1);
        if (result.status === 201) {
          acknowledged.push(result.body.evalId as string);
          if (lastTermination && !firstOkAfterLastTermination) firstOkAfterLastTermination = Date.now();
        } else if (result.status !== 503 || result.body.error !== "Database unavailable") {
          unexpected.push(`${result.status} ${JSON.stringify(result.body)}`);
        }
      }
    };

    const load = Array.from({ length: CLIENTS }, client);
    let terminated = 0;
    for (let round = 0; round < 8; round++) {
      await sleep(150);
      terminated += await terminateApiBackends();
      lastTermination = Date.now();
      firstOkAfterLastTermination = 0;
    }
    await sleep(1_000);
    stop = true;
    await Promise.all(load);

    expect(terminated).toBeGreaterThan(0);
    expect(unexpected).toEqual([]);
    expect(statuses.get(201) ?? 0).toBeGreaterThan(0);
    expect(firstOkAfterLastTermination, "a submit succeeded after the last termination").toBeGreaterThan(0);
    console.info(
      `terminated ${terminated} backends; statuses ${JSON.stringify(Object.fromEntries(statuses))}; ` +
        `first 201 ${firstOkAfterLastTermination - lastTermination} ms after the last termination`,
    );

    // Every acknowledged submit is stored, once.
    const stored = await h.store.pool.query<{ eval_id: string }>(
      "SELECT eval_id FROM offchain.evaluations WHERE eval_id = ANY($1)",
      [acknowledged],
    );
    expect(stored.rows.length).toBe(new Set(acknowledged).size);

    // No client leaked (drizzle's transaction did not release a client whose BEGIN failed).
    const pool = h.store.pool;
    expect({ checkedOut: pool.totalCount - pool.idleCount, waiting: pool.waitingCount }).toEqual({ checkedOut: 0, waiting: 0 });

    // The pool serves again at once.
    expect((await call(h.app, "POST", "/agents/eval-requests/submit", { key, body: validSubmit() })).status).toBe(201);
  });
});

describe("backends terminated under the other users of the pool", () => {
  it("the server wallet's advisory-lock connection: no crash, the lock is free afterwards", async () => {
    const key = `server-wallet:0x${"ab".repeat(20)}`;
    const outcome = await withAdvisoryLock(h.store.pool, key, async () => {
      // The lock's connection sits idle while the work runs (an RPC send): terminate it now.
      expect(await terminateApiBackends()).toBeGreaterThan(0);
      await sleep(200);
      return "sent";
    });
    expect(outcome).toBe("sent");
    // The dead connection was destroyed (its lock went with it): the lock can be taken again at once.
    expect(await withAdvisoryLock(h.store.pool, key, async () => "again")).toBe("again");
  });

  it("the PostgreSQL rate limiter keeps answering (its insurance limiter covers the gap)", async () => {
    const limiter = createPostgresRateLimiter(h.store.pool, { points: 1_000, windowSeconds: 60, keyPrefix: "faults" });
    const failures: unknown[] = [];
    const consume = async () => {
      for (let i = 0; i < 20; i++) await limiter.consume("ip:203.0.113.7").catch((error: unknown) => failures.push(error));
    };
    const load = Promise.all(Array.from({ length: 8 }, consume));
    for (let round = 0; round < 4; round++) {
      await sleep(50);
      await terminateApiBackends();
    }
    await load;
    expect(failures).toEqual([]);
    await expect(limiter.consume("ip:203.0.113.7")).resolves.toBeTruthy();
  });
});

describe("backends terminated under the settlement worker", () => {
  it("rounds fail at worst; the worker goes on and settles everything once the database is back", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 30; i++) ids.push((await submitOk(h, key, { settlementMinutes: 10, payload: `due ${i}` })).evalId);
    h.clock.advanceMinutes(11);
    const worker = new SettlementWorker({
      db: h.store.db,
      storage: h.storage,
      logger: createLogger("silent"),
      now: h.clock.now,
      batchSize: 3,
    });
    const rounds = (async () => {
      for (let i = 0; i < 40; i++) await worker.runOnce().catch(() => undefined);
    })();
    for (let round = 0; round < 5; round++) {
      await sleep(60);
      await terminateApiBackends();
    }
    await rounds;
    // Leases of rows claimed by a round that died run out; a later round (clock moved past them) judges them.
    // The last termination may still be reaching an idle pooled connection: like the worker's poll loop,
    // a round that fails on it is simply run again.
    h.clock.advanceMinutes(30);
    await runUntilARoundSucceeds(worker);
    const statuses = await h.store.pool.query<{ status: string }>(
      "SELECT status FROM offchain.evaluations WHERE eval_id = ANY($1)",
      [ids],
    );
    expect(statuses.rows.length).toBe(30);
    expect(statuses.rows.filter((row) => row.status !== "SETTLED" && row.status !== "FAILED")).toEqual([]);
  });
});
