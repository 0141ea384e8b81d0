/**
 * The ledger's registry (api/ledger): every record kind is declared once, with an event its
 * contract emits, and the reorg reconciler settles and undoes by it: a pass over one unfinal row
 * of every declared kind (their transactions dropped) runs each kind's undo against the real
 * off-chain schema, datanet publishes first, then pod mints.
 */
import { randomBytes } from "node:crypto";
import { sql } from "drizzle-orm";
import { TransactionNotFoundError, TransactionReceiptNotFoundError, toEventSelector, type PublicClient } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PodManagerAbi, SubnetManagerAbi } from "../../abis";
import { createDb, type OffchainDb } from "../../api/db/client";
import { runMigrations } from "../../api/db/migrate";
import { reorgedRecords, verifiedTransactions } from "../../api/db/offchain";
import { createRecordVerifiers } from "../../api/ledger/ledger";
import { KINDS, RECORD_KINDS, recordKindNamed } from "../../api/ledger/registry";
import { reconcileOnce } from "../../api/reorgs/reconciler";
import { useFreshDatabase, type FreshDatabase } from "../support/database";

const ABIS = { PodManager: PodManagerAbi, SubnetManager: SubnetManagerAbi } as const;
const hash = () => `0x${randomBytes(32).toString("hex")}` as const;

describe("the registry", () => {
  it("names every kind once, each with an event of its contract", () => {
    const names = RECORD_KINDS.map((kind) => kind.name);
    expect(new Set(names).size).toBe(names.length);
    expect(names.sort()).toEqual(Object.values(KINDS).map((kind) => kind.name).sort());
    for (const kind of RECORD_KINDS) {
      const event = ABIS[kind.on.contract].find((item) => item.type === "event" && item.name === kind.on.event);
      expect(event, `${kind.name}: ${kind.on.contract}.${kind.on.event}`).toBeDefined();
      expect(toEventSelector(event as never)).toMatch(/^0x[0-9a-f]{64}$/);
      expect(recordKindNamed(kind.name)).toBe(kind);
    }
    expect(recordKindNamed("no-such-kind")).toBeUndefined();
  });

  it("settles datanet publishes first, then pod mints, then the records resting on them", () => {
    expect(RECORD_KINDS[0]).toBe(KINDS.subnetPublish);
    expect(RECORD_KINDS[1]).toBe(KINDS.podMint);
    expect(RECORD_KINDS.slice(2).every((kind) => kind.stage === 2)).toBe(true);
  });

  it("gives the reconciler a re-check for every declared kind and no other", () => {
    const verifiers = createRecordVerifiers({} as OffchainDb, {
      chain: () => {
        throw new Error("not asked");
      },
      config: { txMinConfirmations: 3 },
    });
    expect(Object.keys(verifiers).sort()).toEqual(RECORD_KINDS.map((kind) => kind.name).sort());
  });
});

describe("the reconciler undoes every declared kind", () => {
  let database: FreshDatabase;
  let store: ReturnType<typeof createDb>;

  beforeAll(async () => {
    database = await useFreshDatabase();
    await runMigrations(database.url);
    store = createDb(database.url);
    // the indexer's pods as the republish undo reads them (the views schema, without Ponder)
    await store.db.execute(sql`CREATE SCHEMA chain`);
    await store.db.execute(sql`CREATE TABLE chain.pod (id numeric(78) PRIMARY KEY, subnet_id numeric(78) NOT NULL)`);
  });
  afterAll(async () => {
    await store?.pool.end();
    await database?.drop();
  });

  it("runs each kind's undo when its transaction is dropped, in the registry's order", async () => {
    const rows = [...RECORD_KINDS.map((kind) => kind.name), "a-kind-no-longer-declared"].map((kind) => ({
      txHash: hash(),
      kind,
      recordId: randomBytes(8).toString("hex"),
    }));
    await store.db.insert(verifiedTransactions).values(rows);
    const asked: string[] = [];
    const client = {
      getBlockNumber: async () => 100n,
      getTransactionReceipt: async ({ hash: txHash }: { hash: string }) => {
        asked.push(txHash);
        throw new TransactionReceiptNotFoundError({ hash: txHash as `0x${string}` });
      },
      // nor is it waiting in the node's pool
      getTransaction: async ({ hash: txHash }: { hash: string }) => {
        throw new TransactionNotFoundError({ hash: txHash as `0x${string}` });
      },
    } as unknown as PublicClient;

    const result = await reconcileOnce(store.db, client, { concurrency: 1 });

    expect(asked.sort()).toEqual(rows.map((row) => row.txHash).sort());
    expect(result.undone.map((record) => [record.kind, record.reason]).sort()).toEqual(
      rows.map((row) => [row.kind, "dropped"]).sort(),
    );
    // one at a time within a stage: the stages come in the registry's order
    const stages = result.undone.map((record) => recordKindNamed(record.kind)?.stage ?? 2);
    expect(stages).toEqual([...stages].sort((a, b) => a - b));
    expect(await store.db.select().from(verifiedTransactions)).toEqual([]);
    const undone = await store.db.select().from(reorgedRecords);
    expect(undone.map((record) => [record.kind, record.outcome]).sort()).toEqual(rows.map((row) => [row.kind, "undone"]).sort());
  });
});
