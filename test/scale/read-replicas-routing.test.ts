/**
 * Reads on a hot standby (api/db/read-replicas.ts, api/http/read-route.ts) against a real one: a
 * primary of the test's own and a standby made with pg_basebackup (test/support/pg-standby.ts).
 * The handler reports `pg_is_in_recovery()`, so each answer says which server read it.
 */
import type { Context } from "hono";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb, type Database } from "../../api/db/client";
import { runMigrations } from "../../api/db/migrate";
import { setReadReplicas } from "../../api/db/read-replicas";
import { createRouter, createTestApp } from "../../api/http/create-app";
import { createReadVersion } from "../../api/http/read-version";
import { READ_AFTER_COOKIE, READ_AFTER_HEADER } from "../../api/http/read-route";
import { CACHE_STATUS_HEADER, createResponseCache } from "../../api/http/response-cache";
import { type PgCluster, type PrimaryCluster, startPrimary, startStandby, waitForReplay } from "../support/pg-standby";

let primary: PrimaryCluster;
let standby: PgCluster;
const stores: Database[] = [];

beforeAll(async () => {
  primary = await startPrimary();
  standby = await startStandby(primary);
  await primary.createDatabase("app");
  await runMigrations(primary.url("app"));
  await primary.query("CREATE SCHEMA chain", [], "app");
  await primary.query(
    "CREATE TABLE chain._ponder_checkpoint (chain_name text PRIMARY KEY, latest_checkpoint varchar(75) NOT NULL)",
    [],
    "app",
  );
  await primary.query("INSERT INTO chain._ponder_checkpoint VALUES ('base', '1000')", [], "app");
  await waitForReplay(primary, standby);
});

afterAll(async () => {
  setReadReplicas(undefined);
  await Promise.all(stores.map((store) => Promise.all([store.pool.end(), store.readReplicas?.stop()])));
  await standby?.stop();
  await primary?.stop();
});

async function until(condition: () => boolean | Promise<boolean>, within = 15_000): Promise<void> {
  const deadline = Date.now() + within;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** An API process in miniature: the replicas, a response cache of /public/*, a public read and a write. */
function startApi(options: { maxLagMs: number; versionMaxAgeMs?: number }) {
  const store = createDb(primary.url("app"), {
    readReplicas: { urls: [standby.url("app")], maxLagMs: options.maxLagMs, pollMs: 50 },
  });
  stores.push(store);
  setReadReplicas(store.readReplicas);
  const version = createReadVersion(store.pool, "chain", { maxAgeMs: options.versionMaxAgeMs });
  const cache = createResponseCache({ version, cacheable: (path) => path.startsWith("/api/v1/public/") });
  const router = createRouter();
  router.use("/api/v1/*", cache.middleware);
  const handler = async (c: Context) => {
    const { rows } = await store.pool.query(
      "SELECT pg_is_in_recovery() AS replica, (SELECT count(*)::int FROM offchain.users) AS users",
    );
    return c.json({ data: rows[0] }, 200);
  };
  router.get("/api/v1/public/things", handler); // kept by the response cache
  router.get("/api/v1/things", handler); // not cached
  router.post("/api/v1/things", async (c) => {
    await store.pool.query("INSERT INTO offchain.users (idp_subject) VALUES ('replica-' || gen_random_uuid())");
    return c.json({ data: { ok: true } }, 201);
  });
  const app = createTestApp(router);
  setReadReplicas(undefined);
  const read = async (init: RequestInit = {}, path = "/api/v1/things") => {
    const response = await app.request(path, init);
    expect(response.status).toBe(200);
    const { data } = (await response.json()) as { data: { replica: boolean; users: number } };
    return { ...data, cache: response.headers.get(CACHE_STATUS_HEADER) };
  };
  const write = async () => {
    const response = await app.request("/api/v1/things", { method: "POST" });
    expect(response.status).toBe(201);
    return response;
  };
  return { store, replicas: store.readReplicas!, version, read, write };
}

const users = async () =>
  Number((await primary.query<{ n: number }>("SELECT count(*)::int AS n FROM offchain.users", [], "app"))[0]!.n);

describe("reads on a hot standby", () => {
  it("serves anonymous reads from the standby, authenticated ones and writes from the primary", async () => {
    const api = startApi({ maxLagMs: 60_000 });
    await until(() => api.replicas.status()[0]!.state === "up");
    expect(await api.read()).toMatchObject({ replica: true });
    expect(await api.read({ headers: { authorization: "Bearer x" } })).toMatchObject({ replica: false });
    expect(await api.read({ headers: { cookie: "session=1" } })).toMatchObject({ replica: false });
    expect(api.replicas.stats.replica).toBeGreaterThan(0);
  });

  it("after a write, the caller's read-after cookie is served by a source that has its write; others may see the standby's older state", async () => {
    const api = startApi({ maxLagMs: 60_000 });
    await until(() => api.replicas.status()[0]!.state === "up");
    await standby.query("SELECT pg_wal_replay_pause()", [], "app");
    try {
      const before = await users();
      const written = await api.write();
      const position = written.headers.get(READ_AFTER_HEADER);
      expect(position).toMatch(/^[0-9A-F]+\/[0-9A-F]+$/);
      expect(written.headers.get("set-cookie")).toContain(`${READ_AFTER_COOKIE}=${position}`);
      // the caller: its write, read from the primary (the standby has not replayed it)
      const own = await api.read({ headers: { cookie: `${READ_AFTER_COOKIE}=${position}` } });
      expect(own).toMatchObject({ replica: false, users: before + 1 });
      // anyone else: the standby, within its lag bound, with the state it has replayed
      const other = await api.read();
      expect(other).toMatchObject({ replica: true, users: before });
    } finally {
      await standby.query("SELECT pg_wal_replay_resume()", [], "app");
    }
    await waitForReplay(primary, standby);
  });

  it("never caches a version observed on the primary with data of a standby that has not replayed it", async () => {
    const api = startApi({ maxLagMs: 60_000, versionMaxAgeMs: 60_000 });
    await until(() => api.replicas.status()[0]!.state === "up");
    await standby.query("SELECT pg_wal_replay_pause()", [], "app");
    try {
      await primary.query("INSERT INTO offchain.users (idp_subject) VALUES ('replica-behind-the-standby')", [], "app");
      const now = await users();
      // a version probed outside any request (on the primary), kept for a minute by every request
      expect(await api.version.current()).toBeDefined();
      // an anonymous read handed that version reads its data where the version was seen
      const read = await api.read({}, "/api/v1/public/things");
      expect(read).toMatchObject({ replica: false, users: now, cache: "miss" });
      expect(await api.read({}, "/api/v1/public/things")).toMatchObject({ replica: false, users: now, cache: "hit" });
    } finally {
      await standby.query("SELECT pg_wal_replay_resume()", [], "app");
    }
    await waitForReplay(primary, standby);
  });

  it("skips a standby lagging past the bound, and takes it back once it catches up", async () => {
    const api = startApi({ maxLagMs: 300 });
    await until(() => api.replicas.status()[0]!.state === "up");
    await standby.query("SELECT pg_wal_replay_pause()", [], "app");
    try {
      await primary.query("INSERT INTO offchain.users (idp_subject) VALUES ('replica-lag')", [], "app");
      await until(() => api.replicas.status()[0]!.state === "lagging");
      expect(api.replicas.status()[0]!.lagMs).toBeGreaterThan(300);
      expect(await api.read({ headers: {} })).toMatchObject({ replica: false });
    } finally {
      await standby.query("SELECT pg_wal_replay_resume()", [], "app");
    }
    await until(() => api.replicas.status()[0]!.state === "up");
    expect(await api.read({ headers: {} })).toMatchObject({ replica: true });
  });

  it("answers every read from the primary when the standby dies, and reports it down", async () => {
    const api = startApi({ maxLagMs: 60_000 });
    await until(() => api.replicas.status()[0]!.state === "up");
    const reads = Array.from({ length: 20 }, () => api.read({ headers: {} }));
    await standby.kill("SIGKILL");
    const answers = await Promise.all([...reads, ...Array.from({ length: 20 }, () => api.read({ headers: {} }))]);
    expect(answers).toHaveLength(40); // each read() asserted a 200
    await until(() => api.replicas.status()[0]!.state === "down");
    expect(await api.read({ headers: {} })).toMatchObject({ replica: false });
    // nothing left behind that the pool cannot replace
    const check = new pg.Client({ connectionString: primary.url("app") });
    await check.connect();
    await check.end();
  });
});
