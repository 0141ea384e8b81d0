/**
 * A change of the public list's set as the indexer writes one, for the benches on generated data:
 * a new indexed pod (a copy of pod 1 under the next token id) and its `pod_minted` event, in one transaction with Ponder's reorg triggers off (as run.ts's block
 * producer writes its votes). The pod has no draft, so it is not listed: the list's stamp moves,
 * its totals do not.
 */
import type pg from "pg";
import { eventLogId } from "../../src/lib/event-log";

export async function indexedMint(client: pg.Client, ponderSchema: string): Promise<void> {
  const schema = `"${ponderSchema}"`;
  await client.query("BEGIN");
  try {
    await client.query("SET LOCAL session_replication_role = replica");
    const { rows } = await client.query<{ id: string }>(`SELECT (max(id) + 1)::text AS id FROM ${schema}.pod`);
    const podId = rows[0]!.id;
    // one block per mint, past the generated ones
    const blockNumber = 10_000_000 + Number(podId);
    const blockHash = `0x${blockNumber.toString(16).padStart(64, "0")}`;
    await client.query(`CREATE TEMP TABLE new_pod ON COMMIT DROP AS SELECT * FROM ${schema}.pod WHERE id = 1`);
    await client.query("UPDATE new_pod SET id = $1, mint_tx_hash = $2", [podId, blockHash]);
    await client.query(`INSERT INTO ${schema}.pod SELECT * FROM new_pod`);
    await client.query(
      `INSERT INTO ${schema}.event_log (id, block_number, log_index, block_hash, tx_hash, timestamp, kind, data)
       VALUES ($1, $2, 0, $3, $3, 0, 'pod_minted', $4)`,
      [eventLogId(BigInt(blockNumber), 0, blockHash), blockNumber, blockHash, JSON.stringify({ podId })],
    );
    await client.query("COMMIT");
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw error;
  }
}
