/**
 * CPU of Ponder's in-memory indexing store per operation, without a chain or a database:
 *   npx tsx bench/store-ops.ts [events]            (PONDER_PATCH_STORE_FAST=0 for Ponder's paths)
 * Replays a vote-shaped event mix on the real schema (ponder.schema.ts) through
 * createIndexingStore/createIndexingCache with a complete cache (as in a fresh backfill): per
 * event, insert vote, event_log (JSON data) and 3 event_log_topic rows (one insert), upsert
 * voter_pod_epoch, pod_epoch, datanet_epoch, voter_epoch, voter_pod, update pod, datanet.
 * Prints CPU µs per event and a digest of the buffered rows and of the store's two per-operation
 * counters (must not depend on the switch).
 */
import { createHash } from "node:crypto";
import { getTableColumns } from "drizzle-orm";
import { getTableConfig } from "drizzle-orm/pg-core";
// @ts-expect-error ponder's dist modules have no declarations at these paths
import { createIndexingStore } from "../node_modules/ponder/dist/esm/indexing-store/index.js";
// @ts-expect-error see above
import { createIndexingCache } from "../node_modules/ponder/dist/esm/indexing-store/cache.js";
// @ts-expect-error see above
import { MetricsService } from "../node_modules/ponder/dist/esm/internal/metrics.js";
import * as schema from "../ponder.schema";

const events = Number(process.argv[2] ?? 20000);
type Table = (typeof schema)["vote"];
const common = { metrics: new MetricsService(), logger: { child: () => ({}) } };
const cache = createIndexingCache({ common, schemaBuild: { schema }, crashRecoveryCheckpoint: undefined, eventCount: {}, chainId: undefined });
const store = createIndexingStore({ common, schemaBuild: { schema }, indexingCache: cache, indexingErrorHandler: {}, chainId: undefined });
store.isProcessingEvents = true;
store.qb = { $dialect: "postgres" };
const db = store.db;

/** A full row for `table`: every column from its column type, keyed by `k`. */
function row(table: Table, k: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, column] of Object.entries(getTableColumns(table)) as [string, { columnType: string }][]) {
    switch (column.columnType) {
      case "PgEvmBigint": out[name] = BigInt(k); break;
      case "PgHex": out[name] = `0x${k.toString(16).padStart(40, "0")}`; break;
      case "PgInteger": out[name] = k % 1000; break;
      case "PgBoolean": out[name] = k % 2 === 0; break;
      case "PgJsonb": case "PgJson": out[name] = { kind: "vote", voter: `0x${k.toString(16)}`, amount: String(k) }; break;
      default: out[name] = `s${k}`;
    }
  }
  return out;
}
const bump = (table: Table) => {
  const keys = new Set(getTableConfig(table).primaryKeys.flatMap((pk) => pk.columns.map((c) => c.name)));
  const col = Object.entries(getTableColumns(table)).find(
    ([, c]) => (c as { columnType: string }).columnType === "PgEvmBigint" && !(c as { primary: boolean }).primary && !keys.has((c as { name: string }).name),
  )![0];
  return (r: Record<string, bigint>) => ({ [col]: r[col]! + 1n });
};
const upserts = [schema.voterPodEpoch, schema.podEpoch, schema.datanetEpoch, schema.voterEpoch, schema.voterPod] as unknown as Table[];
const bumps = upserts.map(bump);
const podBump = bump(schema.pod as unknown as Table);
const datanetBump = bump(schema.datanet as unknown as Table);
for (let k = 0; k < 50; k++) {
  await db.insert(schema.pod).values(row(schema.pod as unknown as Table, k));
  await db.insert(schema.datanet).values(row(schema.datanet as unknown as Table, k));
}
const started = process.cpuUsage();
for (let i = 0; i < events; i++) {
  await db.insert(schema.vote).values(row(schema.vote as unknown as Table, 1000 + i)).onConflictDoNothing();
  await db.insert(schema.eventLog).values(row(schema.eventLog as unknown as Table, 1000 + i)).onConflictDoNothing();
  await db.insert(schema.eventLogTopic).values([0, 1, 2].map((j) => row(schema.eventLogTopic as unknown as Table, 3 * i + j))).onConflictDoNothing();
  for (let u = 0; u < upserts.length; u++) {
    await db.insert(upserts[u]!).values(row(upserts[u]!, (i * 7 + u) % 300)).onConflictDoUpdate(bumps[u]!);
  }
  await db.update(schema.pod, { id: BigInt(i % 50) }).set(podBump);
  await db.update(schema.datanet, { id: BigInt(i % 50) }).set(datanetBump);
}
const cpu = process.cpuUsage(started);
const us = (cpu.user + cpu.system) / events;
const digest = createHash("sha256");
// The rows as Ponder will write them: a find on each key written gives the buffered row.
for (let i = 0; i < events; i++) {
  for (const [t, k] of [[schema.vote, 1000 + i], [schema.eventLog, 1000 + i]] as const) {
    const r = await db.find(t, row(t as unknown as Table, k));
    digest.update(JSON.stringify(r, (_, v) => (typeof v === "bigint" ? `${v}n` : v)));
  }
}
for (const [u, t] of upserts.entries()) for (let k = 0; k < 300; k++) digest.update(JSON.stringify(await db.find(t, row(t, k)), (_, v) => (typeof v === "bigint" ? `${v}n` : v)) + u);
for (let k = 0; k < 50; k++) for (const t of [schema.pod, schema.datanet]) digest.update(JSON.stringify(await db.find(t, { id: BigInt(k) }), (_, v) => (typeof v === "bigint" ? `${v}n` : v)));
for (const counter of [common.metrics.ponder_indexing_store_queries_total, common.metrics.ponder_indexing_cache_requests_total]) {
  const values = (await counter.get()).values;
  if (process.env.DUMP) console.log(JSON.stringify(values, null, 0));
  digest.update(JSON.stringify(values));
}
console.log(`${events} events, ${(us).toFixed(1)} µs CPU per event (${(us / 11).toFixed(1)} µs per store operation), rows digest ${digest.digest("hex").slice(0, 16)}`);
