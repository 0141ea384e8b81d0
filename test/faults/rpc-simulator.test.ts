/**
 * The node simulator (bench/rpc-simulator.ts) in front of a real anvil with the seeded protocol:
 * each fault answers as specified, a seed repeats its faults, every call is counted.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startRpcSimulator, type RpcSimulator } from "../../bench/rpc-simulator";
import { startDevnet, type Devnet } from "../support/chain";

let devnet: Devnet;
let node: RpcSimulator;
let head = 0n;

type Answer = { id?: unknown; result?: unknown; error?: { code: number; message: string } };

async function post(body: unknown): Promise<{ status: number; headers: Headers; json: Answer & Answer[] }> {
  const response = await fetch(node.url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  let json: Answer & Answer[];
  try {
    json = JSON.parse(text);
  } catch {
    json = {} as Answer & Answer[];
  }
  return { status: response.status, headers: response.headers, json };
}

const call = (method: string, params: unknown[] = [], id: unknown = 1) => ({ jsonrpc: "2.0", id, method, params });
const hex = (n: bigint) => `0x${n.toString(16)}`;
const getLogs = (from: bigint, to: bigint | "latest") =>
  call("eth_getLogs", [{ fromBlock: hex(from), toBlock: typeof to === "string" ? to : hex(to) }]);

beforeAll(async () => {
  devnet = await startDevnet({ seed: true });
  head = await devnet.protocol.publicClient.getBlockNumber({ cacheTime: 0 });
  node = await startRpcSimulator({ upstream: devnet.chain.rpcUrl });
});

afterAll(async () => {
  await node?.close();
  await devnet?.chain.stop();
});

const reset = (changes: Parameters<RpcSimulator["set"]>[0] = {}) => {
  node.set({
    maxBlockRange: 0,
    maxResults: 0,
    requestsPerSecond: 0,
    retryAfterSeconds: undefined,
    rateLimitCountsCalls: false,
    maxBatchSize: 0,
    status5xxShare: 0,
    timeoutShare: 0,
    lagBlocks: 0,
    lagShare: 1,
    lagAnswer: "null",
    ...changes,
  });
  node.resetStats();
};

describe("the RPC node simulator", () => {
  it("forwards and counts every HTTP request, batch and call by method", async () => {
    reset();
    const single = await post(call("eth_blockNumber"));
    expect(BigInt(single.json.result as string)).toBe(head);
    const batch = await post([call("eth_chainId", [], 1), call("eth_blockNumber", [], 2)]);
    expect(batch.json.map((a) => a.id)).toEqual([1, 2]);
    expect(node.stats).toMatchObject({
      httpRequests: 2,
      batches: 1,
      calls: 3,
      byMethod: { eth_blockNumber: 2, eth_chainId: 1 },
    });
  });

  it("caps eth_getLogs by block range with each provider's error text", async () => {
    reset({ maxBlockRange: 10, rangeErrorStyle: "publicnode" });
    expect((await post(getLogs(0n, 9n))).json.result).toBeInstanceOf(Array);
    expect((await post(getLogs(0n, 10n))).json.error).toEqual({
      code: -32600,
      message: "exceed maximum block range: 10",
    });
    node.set({ rangeErrorStyle: "alchemy" });
    expect((await post(getLogs(5n, 100n))).json.error?.message).toContain("this block range should work: [0x5, 0xe]");
    node.set({ rangeErrorStyle: "quicknode" });
    expect((await post(getLogs(0n, "latest"))).json.error?.message).toBe("eth_getLogs is limited to a 10 range");
    node.set({ rangeErrorStyle: "base" });
    expect((await post(getLogs(0n, "latest"))).json.error?.message).toBe("block range too large");
    expect(node.stats.rangeErrors).toBe(4);
  });

  it("caps eth_getLogs by result count; Infura's suggested range holds at most the cap", async () => {
    reset();
    const all = (await post(getLogs(0n, "latest"))).json.result as Array<{ blockNumber: string }>;
    expect(all.length).toBeGreaterThan(20);
    reset({ maxResults: 20, resultErrorStyle: "geth" });
    expect((await post(getLogs(0n, "latest"))).json.error).toEqual({
      code: -32005,
      message: "query returned more than 20 results",
    });
    node.set({ resultErrorStyle: "infura" });
    const { error } = (await post(getLogs(0n, "latest"))).json;
    const match = /Try with this block range \[(0x[0-9a-f]+), (0x[0-9a-f]+)\]/.exec(error?.message ?? "");
    expect(match).not.toBeNull();
    const suggested = (await post(getLogs(BigInt(match![1]!), BigInt(match![2]!)))).json.result as unknown[];
    expect(suggested.length).toBeGreaterThan(0);
    expect(suggested.length).toBeLessThanOrEqual(20);
    expect(node.stats.resultErrors).toBe(2);
  });

  it("rate-limits with HTTP 429, with and without Retry-After, per request or per call of a batch", async () => {
    reset({ requestsPerSecond: 3 });
    // a fresh one-second window
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await post(call("eth_blockNumber"))).status);
    expect(statuses.slice(0, 3)).toEqual([200, 200, 200]);
    const limited = await post(call("eth_blockNumber"));
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toBeNull();
    node.set({ retryAfterSeconds: 2 });
    expect((await post(call("eth_blockNumber"))).headers.get("retry-after")).toBe("2");

    reset({ requestsPerSecond: 3, rateLimitCountsCalls: true });
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const four = [1, 2, 3, 4].map((id) => call("eth_blockNumber", [], id));
    expect((await post(four)).status).toBe(429);
    expect((await post(four.slice(0, 3))).status).toBe(200);
  });

  it("refuses batches over the cap with one JSON-RPC error", async () => {
    reset({ maxBatchSize: 2 });
    expect((await post([call("eth_chainId", [], 1), call("eth_chainId", [], 2)])).json).toHaveLength(2);
    const refused = await post([1, 2, 3].map((id) => call("eth_chainId", [], id)));
    expect(refused.json.error?.code).toBe(-32600);
    expect(node.stats.batchesRefused).toBe(1);
  });

  it("answers 5xx and drops held requests at the set shares", async () => {
    reset({ status5xxShare: 1 });
    expect([500, 502, 503]).toContain((await post(call("eth_blockNumber"))).status);
    reset({ timeoutShare: 1, timeoutHoldMs: 300 });
    await expect(post(call("eth_blockNumber"))).rejects.toThrow();
    expect(node.stats.timeouts).toBe(1);
  });

  it("a seed repeats its faults", async () => {
    const statuses = async (seed: number) => {
      reset({ status5xxShare: 0.5, seed });
      const out: number[] = [];
      for (let i = 0; i < 16; i++) out.push((await post(call("eth_chainId"))).status);
      return out;
    };
    const first = await statuses(7);
    expect(first).toContain(200);
    expect(first.some((s) => s >= 500)).toBe(true);
    expect(await statuses(7)).toEqual(first);
    expect(await statuses(8)).not.toEqual(first);
  });

  it("a lagging node answers for a head k blocks behind", async () => {
    reset();
    const logs = (await post(getLogs(0n, head))).json.result as Array<{ transactionHash: string; blockNumber: string }>;
    const last = logs.at(-1)!;
    const lastBlock = BigInt(last.blockNumber);
    expect((await post(getLogs(lastBlock, head))).json.result).not.toEqual([]);

    // behind by one block more than the last block with logs
    const lag = head - lastBlock + 1n;
    reset({ lagBlocks: Number(lag) });
    expect(BigInt((await post(call("eth_blockNumber"))).json.result as string)).toBe(head - lag);
    const latest = (await post(call("eth_getBlockByNumber", ["latest", false]))).json.result as { number: string };
    expect(BigInt(latest.number)).toBe(head - lag);
    expect((await post(call("eth_getBlockByNumber", [hex(head), false]))).json.result).toBeNull();
    expect((await post(call("eth_getTransactionReceipt", [last.transactionHash]))).json.result).toBeNull();
    expect((await post(getLogs(lastBlock, head))).json.result).toEqual([]);
    node.set({ lagAnswer: "header not found" });
    expect((await post(call("eth_getBlockByNumber", [hex(head), false]))).json.error?.message).toBe("header not found");
    expect(node.stats.lagged).toBe(4);

    // half the calls from the lagging node: the same block is there, then not
    reset({ lagBlocks: 2, lagShare: 0.5, seed: 3 });
    const seen = new Set<string>();
    for (let i = 0; i < 12; i++)
      seen.add(JSON.stringify((await post(call("eth_getBlockByNumber", [hex(head), false]))).json.result === null));
    expect(seen).toEqual(new Set(["true", "false"]));
  });
});
