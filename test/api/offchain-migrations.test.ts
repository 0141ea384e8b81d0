import { is } from "drizzle-orm";
import { getTableConfig, PgTable } from "drizzle-orm/pg-core";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import * as offchainSchema from "../../api/db/offchain/index";
import { MIGRATIONS_FOLDER, runMigrations } from "../../api/db/migrate";
import { useFreshDatabase, type FreshDatabase } from "../support/database";

const declaredTables = Object.values(offchainSchema as Record<string, unknown>)
  .filter((value): value is PgTable => is(value, PgTable))
  .map((table) => getTableConfig(table).name)
  .sort();

const databases: FreshDatabase[] = [];
const clients: pg.Client[] = [];

async function freshDatabase(): Promise<string> {
  const database = await useFreshDatabase();
  databases.push(database);
  return database.url;
}

async function connect(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  clients.push(client);
  return client;
}

async function offchainTables(client: pg.Client): Promise<string[]> {
  const result = await client.query<{ table_name: string }>(
    `SELECT table_name FROM information_schema.tables
     WHERE table_schema = 'offchain' AND table_name <> '__drizzle_migrations' ORDER BY table_name`,
  );
  return result.rows.map((row) => row.table_name);
}

/** Every migration drizzle-kit generated, from its journal. */
const declaredMigrations = (
  JSON.parse(readFileSync("api/db/migrations/meta/_journal.json", "utf8")) as { entries: unknown[] }
).entries.length;

async function appliedMigrations(client: pg.Client): Promise<number> {
  const result = await client.query<{ count: string }>('SELECT count(*) FROM offchain."__drizzle_migrations"');
  return Number(result.rows[0]?.count);
}

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.end()));
});

afterAll(async () => {
  await Promise.all(databases.map((database) => database.drop()));
});

describe("off-chain migrations", () => {
  it("create every declared table in schema offchain on a fresh database", async () => {
    const url = await freshDatabase();
    await runMigrations(url);
    const client = await connect(url);
    expect(declaredTables.length).toBeGreaterThan(20);
    expect(await offchainTables(client)).toEqual(declaredTables);
    const publicTables = await client.query("SELECT 1 FROM information_schema.tables WHERE table_schema = 'public'");
    expect(publicTables.rowCount).toBe(0);
  });

  it("are a no-op the second time", async () => {
    const url = await freshDatabase();
    await runMigrations(url);
    await runMigrations(url);
    const client = await connect(url);
    expect(await appliedMigrations(client)).toBe(declaredMigrations);
    expect(await offchainTables(client)).toEqual(declaredTables);
  });

  it("tolerate several replicas migrating the same fresh database at once", async () => {
    const url = await freshDatabase();
    await Promise.all([runMigrations(url), runMigrations(url), runMigrations(url)]);
    const client = await connect(url);
    expect(await appliedMigrations(client)).toBe(declaredMigrations);
    expect(await offchainTables(client)).toEqual(declaredTables);
  });

  it("let the database reject a second record for the same transaction hash", async () => {
    const url = await freshDatabase();
    await runMigrations(url);
    const client = await connect(url);
    const txHash = `0x${"ab".repeat(32)}`;
    await client.query("INSERT INTO offchain.verified_transactions (tx_hash, kind, record_id) VALUES ($1, 'pod-mint', 'a')", [
      txHash,
    ]);
    await expect(
      client.query("INSERT INTO offchain.verified_transactions (tx_hash, kind, record_id) VALUES ($1, 'vote', 'b')", [
        txHash,
      ]),
    ).rejects.toMatchObject({ code: "23505" });
    await expect(
      client.query("INSERT INTO offchain.verified_transactions (tx_hash, kind, record_id) VALUES ($1, 'vote', 'c')", [
        txHash.toUpperCase().replace("0X", "0x"),
      ]),
    ).rejects.toMatchObject({ code: "23514" }); // mixed case would dodge the unique index: refused by the check
  });

  it("keep agents and orders made before 0005_agent_wallets: the wallet's binding time and each order's payer are filled in", async () => {
    // the migrations up to 0004 only: a copy of the folder whose journal stops there
    const folder = mkdtempSync(path.join(os.tmpdir(), "migrations-0004-"));
    try {
      cpSync(MIGRATIONS_FOLDER, folder, { recursive: true });
      const journalFile = path.join(folder, "meta", "_journal.json");
      const journal = JSON.parse(readFileSync(journalFile, "utf8")) as { entries: Array<{ tag: string }> };
      const upTo = journal.entries.findIndex((entry) => entry.tag === "0005_agent_wallets");
      expect(upTo).toBe(5);
      writeFileSync(journalFile, JSON.stringify({ ...journal, entries: journal.entries.slice(0, upTo) }));
      const url = await freshDatabase();
      await runMigrations(url, folder);
      const client = await connect(url);
      const wallet = `0x${"1a".repeat(20)}`;
      const agent = await client.query<{ id: string }>(
        "INSERT INTO offchain.agents (name, description, wallet_address, credential_hash) VALUES ('Old', '', $1, 'h1') RETURNING id",
        [wallet],
      );
      const agentId = agent.rows[0]!.id;
      await client.query(
        `INSERT INTO offchain.subscription_orders (agent_id, subnet_id, subnet_token_id, package_id, subscription_days, amount, tx_hash, block_number)
         VALUES ($1, 's1', 1, 'monthly', 30, 0, $2, 7)`,
        [agentId, `0x${"cd".repeat(32)}`],
      );

      await runMigrations(url);
      expect(await appliedMigrations(client)).toBe(declaredMigrations);
      const agents = await client.query("SELECT wallet_address, wallet_bound_at = created_at AS bound_at_creation FROM offchain.agents");
      expect(agents.rows).toEqual([{ wallet_address: wallet, bound_at_creation: true }]);
      const orders = await client.query("SELECT wallet_address FROM offchain.subscription_orders");
      expect(orders.rows).toEqual([{ wallet_address: wallet }]);
      // an agent may now have no wallet, and one wallet may back several agents
      await client.query("INSERT INTO offchain.agents (name, description, credential_hash) VALUES ('New', '', 'h2')");
      await client.query("INSERT INTO offchain.agents (name, description, wallet_address, wallet_bound_at, credential_hash) VALUES ('Twin', '', $1, now(), 'h3')", [wallet]);
      // a wallet always comes with its binding time
      await expect(
        client.query("INSERT INTO offchain.agents (name, description, wallet_address, credential_hash) VALUES ('Half', '', $1, 'h4')", [wallet]),
      ).rejects.toMatchObject({ code: "23514" });
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it("index pod and datanet text for trigram search", async () => {
    const url = await freshDatabase();
    await runMigrations(url);
    const client = await connect(url);
    const indexes = await client.query<{ indexname: string; indexdef: string }>(
      "SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'offchain' AND indexname LIKE '%search_trgm%' ORDER BY indexname",
    );
    expect(indexes.rows.map((row) => row.indexname)).toEqual(["pod_drafts_search_trgm_idx", "subnet_drafts_search_trgm_idx"]);
    for (const row of indexes.rows) expect(row.indexdef).toMatch(/USING gin .*gin_trgm_ops/);

    const user = await client.query<{ id: string }>("INSERT INTO offchain.users (idp_subject) VALUES ('sub-1') RETURNING id");
    await client.query(
      `INSERT INTO offchain.pod_drafts (owner_user_id, subnet_id, pod_name, url, platform, category, pod_description)
       VALUES ($1, 's1', 'Solar panels', 'https://x.test/a', 'web', 'energy', 'Efficiency of rooftop photovoltaics')`,
      [user.rows[0]?.id],
    );
    const found = await client.query(
      "SELECT pod_name FROM offchain.pod_drafts WHERE (pod_name || ' ' || pod_description) ILIKE '%rooftop%'",
    );
    expect(found.rows).toEqual([{ pod_name: "Solar panels" }]);
  });
});
