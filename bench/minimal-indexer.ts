/**
 * The baseline of the backfill benchmark: a minimal getLogs indexer of the same contracts and
 * filters as ponder.config.ts (CoreToken: Transfer to the SubnetManager only).
 *   - eth_getLogs in 2,000-block ranges, 4 ranges in flight (one request for the three protocol
 *     contracts, one for the filtered CORE transfers);
 *   - viem decodeEventLog with our ABIs;
 *   - block headers (eth_getBlockByNumber(n, false)) in JSON-RPC batches of 100, only for blocks
 *     with logs (for the timestamp);
 *   - INSERT … SELECT FROM unnest(…) into one table, 5,000 rows a statement.
 */
import pg from "pg";
import { decodeEventLog, encodeEventTopics, pad, type Abi, type Address, type Hex } from "viem";
import { CoreTokenAbi, PodManagerAbi, SubnetManagerAbi, VeCoreAbi } from "../abis";

export type MinimalContracts = Record<"CoreToken" | "VeCore" | "SubnetManager" | "PodManager", { address: Address; startBlock: number }>;

type RawLog = { address: Hex; topics: Hex[]; data: Hex; blockNumber: Hex; transactionHash: Hex; logIndex: Hex };

const RANGE = 2_000;
const IN_FLIGHT = 4;
const HEADER_BATCH = 100;
const ROWS_PER_INSERT = 5_000;

async function rpc(url: string, body: unknown): Promise<any> {
  const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  if (!response.ok) throw new Error(`RPC HTTP ${response.status}`);
  return response.json();
}

async function call<T>(url: string, method: string, params: unknown[]): Promise<T> {
  const r = await rpc(url, { jsonrpc: "2.0", id: 1, method, params });
  if (r.error) throw new Error(`${method}: ${r.error.message}`);
  return r.result as T;
}

const json = (value: unknown) => JSON.stringify(value, (_k, v) => (typeof v === "bigint" ? v.toString() : v));

export async function runMinimalIndexer(options: {
  rpcUrl: string;
  databaseUrl: string;
  schema: string;
  contracts: MinimalContracts;
  toBlock: number;
}): Promise<{ events: number; seconds: number; blocksWithLogs: number }> {
  const started = performance.now();
  const { rpcUrl, contracts } = options;
  const client = new pg.Client({ connectionString: options.databaseUrl });
  await client.connect();
  const table = `${client.escapeIdentifier(options.schema)}.event`;
  await client.query(`CREATE SCHEMA IF NOT EXISTS ${client.escapeIdentifier(options.schema)}`);
  await client.query(`DROP TABLE IF EXISTS ${table}`);
  await client.query(
    `CREATE TABLE ${table} (block_number bigint NOT NULL, log_index integer NOT NULL, tx_hash text NOT NULL,
       address text NOT NULL, name text NOT NULL, args jsonb NOT NULL, block_timestamp bigint NOT NULL,
       PRIMARY KEY (block_number, log_index))`,
  );

  const abiByAddress = new Map<string, Abi>([
    [contracts.CoreToken.address.toLowerCase(), CoreTokenAbi as Abi],
    [contracts.VeCore.address.toLowerCase(), VeCoreAbi as Abi],
    [contracts.SubnetManager.address.toLowerCase(), SubnetManagerAbi as Abi],
    [contracts.PodManager.address.toLowerCase(), PodManagerAbi as Abi],
  ]);
  const transferToSubnetManager = [
    encodeEventTopics({ abi: CoreTokenAbi, eventName: "Transfer" })[0]!,
    null,
    pad(contracts.SubnetManager.address.toLowerCase() as Hex, { size: 32 }),
  ];
  const protocolAddresses = [contracts.VeCore.address, contracts.SubnetManager.address, contracts.PodManager.address];
  const fromBlock = Math.min(...Object.values(contracts).map((c) => c.startBlock));

  const ranges: Array<[number, number]> = [];
  for (let from = fromBlock; from <= options.toBlock; from += RANGE) ranges.push([from, Math.min(from + RANGE - 1, options.toBlock)]);

  let events = 0;
  let blocksWithLogs = 0;
  // inserts are serialised on the one connection; fetching/decoding overlaps them
  let insertChain: Promise<void> = Promise.resolve();

  const processRange = async ([from, to]: [number, number]) => {
    const hex = (n: number) => `0x${n.toString(16)}`;
    const [protocolLogs, coreLogs] = await Promise.all([
      call<RawLog[]>(rpcUrl, "eth_getLogs", [{ address: protocolAddresses, fromBlock: hex(from), toBlock: hex(to) }]),
      call<RawLog[]>(rpcUrl, "eth_getLogs", [{ address: contracts.CoreToken.address, topics: transferToSubnetManager, fromBlock: hex(from), toBlock: hex(to) }]),
    ]);
    const logs = [...protocolLogs, ...coreLogs];
    if (logs.length === 0) return;
    const blockNumbers = [...new Set(logs.map((l) => l.blockNumber))];
    blocksWithLogs += blockNumbers.length;
    const timestamps = new Map<string, bigint>();
    for (let i = 0; i < blockNumbers.length; i += HEADER_BATCH) {
      const batch = blockNumbers.slice(i, i + HEADER_BATCH);
      const results = (await rpc(rpcUrl, batch.map((n, id) => ({ jsonrpc: "2.0", id, method: "eth_getBlockByNumber", params: [n, false] })))) as Array<{ id: number; result: { timestamp: Hex } }>;
      for (const r of results) timestamps.set(batch[r.id]!, BigInt(r.result.timestamp));
    }
    const cols = { block: [] as string[], index: [] as number[], tx: [] as string[], address: [] as string[], name: [] as string[], args: [] as string[], ts: [] as string[] };
    for (const log of logs) {
      const decoded = decodeEventLog({ abi: abiByAddress.get(log.address.toLowerCase())!, data: log.data, topics: log.topics as [Hex, ...Hex[]] });
      cols.block.push(BigInt(log.blockNumber).toString());
      cols.index.push(Number(log.logIndex));
      cols.tx.push(log.transactionHash);
      cols.address.push(log.address);
      cols.name.push(decoded.eventName ?? "");
      cols.args.push(json(decoded.args));
      cols.ts.push(timestamps.get(log.blockNumber)!.toString());
    }
    events += logs.length;
    const insert = async () => {
      for (let i = 0; i < logs.length; i += ROWS_PER_INSERT) {
        const s = (xs: unknown[]) => xs.slice(i, i + ROWS_PER_INSERT);
        await client.query(
          `INSERT INTO ${table} SELECT * FROM unnest($1::bigint[], $2::int[], $3::text[], $4::text[], $5::text[], $6::jsonb[], $7::bigint[])`,
          [s(cols.block), s(cols.index), s(cols.tx), s(cols.address), s(cols.name), s(cols.args), s(cols.ts)],
        );
      }
    };
    insertChain = insertChain.then(insert);
    await insertChain;
  };

  let next = 0;
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next < ranges.length) await processRange(ranges[next++]!);
    }),
  );
  await insertChain;
  await client.end();
  return { events, seconds: (performance.now() - started) / 1000, blocksWithLogs };
}
