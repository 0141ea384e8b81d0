/**
 * The lag rule and the routing of api/db/read-replicas.ts with stand-in pools: which source a
 * statement goes to, by request mark, statement kind, floor and replica state.
 */
import type pg from "pg";
import { describe, expect, it } from "vitest";
import {
  formatLsn,
  isReplicaSafe,
  onPrimary,
  parseLsn,
  ReadReplicas,
  readAtLeast,
  requestWrote,
  runWithReadRoute,
} from "../../api/db/read-replicas";

/** A pool that answers every statement with `answer(text)` and records what it was sent. */
function fakePool(name: string, answer: (text: string) => Record<string, unknown>) {
  const sent: string[] = [];
  const pool = {
    sent,
    fail: undefined as Error | undefined,
    query: async (text: string) => {
      sent.push(text);
      if (pool.fail) throw pool.fail;
      return { rows: [{ source: name, ...answer(text) }] };
    },
    connect: async () => ({ release: () => undefined }),
    end: async () => undefined,
  };
  return pool;
}

function setup(options: { maxLagMs?: number } = {}) {
  let clock = 0;
  const state = { primaryLsn: "0/100", replayLsn: "0/100", recovery: true };
  const primary = fakePool("primary", () => ({ lsn: state.primaryLsn }));
  const replica = fakePool("replica", () => ({ lsn: state.replayLsn, recovery: state.recovery }));
  const replicas = new ReadReplicas([{ name: "r1", pool: replica as unknown as pg.Pool }], {
    maxLagMs: options.maxLagMs ?? 1_000,
    pollMs: 100,
    now: () => clock,
  });
  replicas.attach(primary as unknown as pg.Pool);
  const query = (text = "SELECT 1") =>
    (primary as unknown as { query: (t: string) => Promise<{ rows: { source: string }[] }> })
      .query(text)
      .then((r) => r.rows[0]!.source);
  return {
    replicas,
    state,
    primary,
    replica,
    query,
    tick: async (ms: number) => {
      clock += ms;
      await replicas.poll();
    },
    stop: () => replicas.stop(),
  };
}

describe("WAL positions", () => {
  it("parse and format pg_lsn text", () => {
    expect(parseLsn("16/B374D848")).toBe((0x16n << 32n) | 0xb374d848n);
    expect(formatLsn(parseLsn("16/B374D848"))).toBe("16/B374D848");
    expect(parseLsn(undefined)).toBe(0n);
    expect(parseLsn("nonsense")).toBe(0n);
  });

  it("only plain SELECTs may go to a standby", () => {
    expect(isReplicaSafe('select "id" from "chain"."pod" where "id" = $1')).toBe(true);
    expect(isReplicaSafe("SELECT * FROM t FOR UPDATE")).toBe(false);
    expect(isReplicaSafe("select pg_advisory_xact_lock(1)")).toBe(false);
    expect(isReplicaSafe("insert into t values (1)")).toBe(false);
    expect(isReplicaSafe("with x as (delete from t returning *) select * from x")).toBe(false);
  });
});

describe("routing", () => {
  it("sends a public read to an up replica, everything else to the primary", async () => {
    const t = setup();
    await t.tick(0);
    expect(t.replicas.status()[0]).toMatchObject({ state: "up", lagMs: 0 });
    expect(await runWithReadRoute({ replicas: true }, () => t.query())).toBe("replica");
    expect(await runWithReadRoute({ replicas: false }, () => t.query())).toBe("primary");
    expect(await t.query()).toBe("primary"); // outside a request: workers
    const wrote = await runWithReadRoute({ replicas: true }, async () => {
      expect(await t.query("INSERT INTO t VALUES (1)")).toBe("primary");
      // its own write is on the primary: so are its reads from now on
      expect(await t.query()).toBe("primary");
      return requestWrote();
    });
    expect(wrote).toBe(true);
    expect(await onPrimary(() => t.query())).toBe("primary");
    await t.stop();
  });

  it("needs the replica to have replayed the request's floor, and stays on the primary once it left a replica", async () => {
    const t = setup();
    await t.tick(0);
    t.state.primaryLsn = "0/200";
    // the caller's write is at 0/200; the replica replayed 0/100
    expect(await runWithReadRoute({ replicas: true, floor: parseLsn("0/200") }, () => t.query())).toBe("primary");
    const sources = await runWithReadRoute({ replicas: true }, async () => {
      const first = await t.query();
      readAtLeast("0/200"); // a read version observed at 0/200
      const second = await t.query();
      return [first, second];
    });
    expect(sources).toEqual(["replica", "primary"]);
    t.state.replayLsn = "0/200";
    await t.tick(100);
    expect(await runWithReadRoute({ replicas: true, floor: parseLsn("0/200") }, () => t.query())).toBe("replica");
    await t.stop();
  });

  it("measures lag as how long ago the primary was last at a position the replica replayed", async () => {
    const t = setup({ maxLagMs: 1_000 });
    await t.tick(0); // primary 0/100 at t=0, replica there
    t.state.primaryLsn = "0/300";
    await t.tick(400); // replica still at 0/100: last at the primary's position of t=0
    expect(t.replicas.status()[0]).toMatchObject({ state: "up", lagMs: 400 });
    await t.tick(700);
    expect(t.replicas.status()[0]).toMatchObject({ state: "lagging", lagMs: 1_100 });
    expect(await runWithReadRoute({ replicas: true }, () => t.query())).toBe("primary");
    t.state.replayLsn = "0/300";
    await t.tick(100);
    expect(t.replicas.status()[0]).toMatchObject({ state: "up", lagMs: 0 });
    // an idle primary: no lag however long nothing is written
    await t.tick(60_000);
    expect(t.replicas.status()[0]).toMatchObject({ state: "up", lagMs: 0 });
    await t.stop();
  });

  it("answers a failed replica read from the primary and skips the replica until a poll finds it again", async () => {
    const t = setup();
    await t.tick(0);
    t.replica.fail = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:1"), { code: "ECONNREFUSED" });
    expect(await runWithReadRoute({ replicas: true }, () => t.query())).toBe("primary");
    expect(t.replicas.status()[0]).toMatchObject({ state: "down" });
    expect(t.replicas.stats.fallbacks).toBe(1);
    const sentBefore = t.replica.sent.length;
    expect(await runWithReadRoute({ replicas: true }, () => t.query())).toBe("primary");
    expect(t.replica.sent.length).toBe(sentBefore); // not tried while down
    t.replica.fail = undefined;
    await t.tick(100);
    expect(await runWithReadRoute({ replicas: true }, () => t.query())).toBe("replica");
    await t.stop();
  });

  it("leaves out a server that is not in recovery (a promoted standby)", async () => {
    const t = setup();
    t.state.recovery = false;
    await t.tick(0);
    expect(t.replicas.status()[0]).toMatchObject({ state: "down" });
    expect(await runWithReadRoute({ replicas: true }, () => t.query())).toBe("primary");
    await t.stop();
  });
});
