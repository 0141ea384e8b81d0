/**
 * A pooled connection the server (or a proxy) dropped while it sat idle: a read on it is sent again
 * on another connection and answers; a write is not sent again.
 */
import net from "node:net";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb, type Database } from "../../api/db/client";
import { isStaleConnectionError } from "../../api/db/stale-connections";
import { useFreshDatabase, type FreshDatabase } from "../support/database";

/**
 * A TCP proxy in front of PostgreSQL. `dropIdle()` marks the connections open now: the next bytes a
 * client sends on one of them end it instead of reaching the server, as a connection cut while idle.
 */
function startProxy(target: URL) {
  const doomed = new Set<net.Socket>();
  const open = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port || 5432), target.hostname);
    open.add(client);
    client.on("close", () => {
      open.delete(client);
      doomed.delete(client);
      upstream.destroy();
    });
    upstream.on("close", () => client.destroy());
    client.on("error", () => upstream.destroy());
    upstream.on("error", () => client.destroy());
    client.on("data", (chunk) => {
      if (doomed.has(client)) {
        client.destroy();
        return;
      }
      upstream.write(chunk);
    });
    upstream.on("data", (chunk) => client.write(chunk));
  });
  return {
    listen: () => new Promise<number>((resolve) => server.listen(0, "127.0.0.1", () => resolve((server.address() as net.AddressInfo).port))),
    dropIdle: () => {
      for (const socket of open) doomed.add(socket);
    },
    close: () => {
      for (const socket of open) socket.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

let database: FreshDatabase;
let proxy: ReturnType<typeof startProxy>;
let store: Database;
const retried: string[] = [];

beforeAll(async () => {
  database = await useFreshDatabase();
  const url = new URL(database.url);
  proxy = startProxy(url);
  const port = await proxy.listen();
  const proxied = new URL(database.url);
  proxied.hostname = "127.0.0.1";
  proxied.port = String(port);
  store = createDb(proxied.toString(), { maxConnections: 2, onStaleConnectionRetry: (error) => retried.push(error.message) });
  await store.pool.query("CREATE TABLE notes (id serial PRIMARY KEY, body text NOT NULL)");
});

afterAll(async () => {
  await store?.pool.end();
  await proxy?.close();
  await database?.drop();
});

describe("reads on a connection dropped while idle", () => {
  it("a SELECT is sent again on another connection and answers", async () => {
    await store.pool.query("SELECT 1");
    proxy.dropIdle();
    retried.length = 0;
    const { rows } = await store.pool.query<{ n: number }>("SELECT 41 + 1 AS n");
    expect(rows).toEqual([{ n: 42 }]);
    expect(retried).toEqual([expect.stringMatching(/Connection terminated unexpectedly/)]);
  });

  it("a drizzle read (a query config object) is sent again too", async () => {
    await store.pool.query("SELECT 1");
    proxy.dropIdle();
    retried.length = 0;
    const result = await store.db.execute<{ n: number }>("select 7 as n");
    expect(result.rows).toEqual([{ n: 7 }]);
    expect(retried).toHaveLength(1);
  });

  it("a write is not sent again: it fails, and nothing was applied twice", async () => {
    await store.pool.query("SELECT 1");
    proxy.dropIdle();
    retried.length = 0;
    await expect(store.pool.query("INSERT INTO notes (body) VALUES ('once')")).rejects.toThrow(/Connection terminated/);
    expect(retried).toEqual([]);
    const { rows } = await store.pool.query<{ n: string }>("SELECT count(*) AS n FROM notes");
    expect(rows[0]!.n).toBe("0");
  });

  it("a statement the server refused is not sent again", async () => {
    retried.length = 0;
    await expect(store.pool.query("SELECT * FROM no_such_table")).rejects.toThrow(/does not exist/);
    expect(retried).toEqual([]);
  });
});

describe("a read that loses a lock race to DDL (the views switch of a new indexing version)", () => {
  it("a SELECT picked as a deadlock's victim is sent again and answers", async () => {
    const direct = new pg.Client({ connectionString: database.url });
    await direct.connect();
    try {
      await direct.query("CREATE TABLE IF NOT EXISTS lock_a (n int); CREATE TABLE IF NOT EXISTS lock_b (n int)");
      retried.length = 0;
      // the DDL side holds b, the read locks a and waits for b, then the DDL side asks for a:
      // a deadlock, and the read (waiting longer) is its victim
      await direct.query("BEGIN; LOCK TABLE lock_b IN ACCESS EXCLUSIVE MODE");
      const read = store.pool.query<{ n: number }>("SELECT 5 AS n FROM (SELECT count(*) FROM lock_a) a, (SELECT count(*) FROM lock_b) b");
      await new Promise((resolve) => setTimeout(resolve, 300));
      await direct.query("LOCK TABLE lock_a IN ACCESS EXCLUSIVE MODE");
      await direct.query("COMMIT");
      const { rows } = await read;
      expect(rows).toEqual([{ n: 5 }]);
      expect(retried).toEqual([expect.stringMatching(/deadlock detected/)]);
    } finally {
      await direct.end();
    }
  });
});

describe("isStaleConnectionError", () => {
  it("knows a dropped connection from a slow or a wrong statement", () => {
    expect(isStaleConnectionError(new Error("Connection terminated unexpectedly"))).toBe(true);
    expect(isStaleConnectionError(Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" }))).toBe(true);
    expect(isStaleConnectionError(new Error("Query read timeout"))).toBe(false);
    expect(isStaleConnectionError(new Error("timeout exceeded when trying to connect"))).toBe(false);
    expect(isStaleConnectionError("Connection terminated unexpectedly")).toBe(false);
  });
});
