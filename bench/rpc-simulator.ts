/**
 * A MODELLED remote Base node for tests and the bench: an HTTP JSON-RPC proxy in front of a local
 * anvil that behaves like a hosted endpoint or a busy self-hosted node:
 *   - latency: every HTTP request held `latencyMs` (+ up to `jitterMs`) before it is answered (a
 *     batch pays it once; requests in flight wait in parallel, like parallel connections);
 *   - eth_getLogs caps: a block-range cap and a result-count cap, answered with the error bodies
 *     real providers send (`rangeErrorStyle`, `resultErrorStyle`: the texts are in RANGE_ERRORS and
 *     RESULT_ERRORS below);
 *   - a requests-per-second limit answering HTTP 429 (with `Retry-After` when `retryAfterSeconds`
 *     is set), counting each HTTP request or, with `rateLimitCountsCalls`, each call of a batch;
 *   - a batch-size cap (a larger batch gets one JSON-RPC error, not an array);
 *   - a share of HTTP requests answered 5xx and a share held past the client's timeout and dropped;
 *   - a share of sends (`dropAnswerMethods`) carried out by the node with their answer lost;
 *   - a lagging node: a share of calls (`lagShare`, default all) answered by a node `lagBlocks`
 *     behind: a lower eth_blockNumber and "latest", null (or "header not found") for newer
 *     blocks, receipts and transactions, and eth_getLogs without their logs.
 * Faults are drawn from a seeded PRNG (`seed`): the same requests in the same order meet the same
 * faults. Every HTTP request, batch, JSON-RPC call (by method) and injected fault is counted.
 *
 *   const node = await startRpcSimulator({ upstream: chain.rpcUrl, latencyMs: 40, maxBlockRange: 2000 });
 *   ... point the client at node.url ...
 *   node.set({ status5xxShare: 0.05 });   // change the profile while running
 *   console.log(node.stats);
 *   await node.close();
 */
import http from "node:http";
import type { AddressInfo } from "node:net";

/** Block-range cap errors, as providers word them (and which of Ponder's retry rules reads each). */
export const RANGE_ERRORS = {
  /** publicnode-style: a size Ponder reads as the range to use. */
  publicnode: (max: number) => ({ code: -32600, message: `exceed maximum block range: ${max}` }),
  /** Alchemy: a suggested range in the text. */
  alchemy: (max: number, from: bigint) => ({
    code: -32600,
    message:
      `Log response size exceeded. You can make eth_getLogs requests with up to a ${max} block range and no limit on ` +
      `the response size, or you can request any block range with a cap of 10K logs in the response. Based on your ` +
      `parameters, this block range should work: [${hex(from)}, ${hex(from + BigInt(max) - 1n)}]`,
  }),
  /** QuickNode. */
  quicknode: (max: number) => ({
    code: -32614,
    message: `eth_getLogs is limited to a ${max.toLocaleString("en-US")} range`,
  }),
  /** Base's own public endpoint: no size given. */
  base: () => ({ code: -32000, message: "block range too large" }),
  /** A text no retry rule knows (a self-hosted proxy's own wording). */
  unknown: (max: number) => ({ code: -32000, message: `eth_getLogs block span exceeds the configured ${max}` }),
} as const;

/** Result-count cap errors. */
export const RESULT_ERRORS = {
  /** Infura: with a suggested range that holds at most `max` logs. */
  infura: (max: number, from: bigint, to: bigint) => ({
    code: -32005,
    message: `query returned more than ${max} results. Try with this block range [${hex(from)}, ${hex(to)}].`,
  }),
  /** geth / op-geth (a self-hosted Base node, --rpc.logquerylimit): no range suggested. */
  geth: (max: number) => ({ code: -32005, message: `query returned more than ${max} results` }),
  /** llamarpc, Ankr. */
  llamarpc: (max: number) => ({ code: -32602, message: `query exceeds max results ${max}, retry with the range` }),
} as const;

export type RangeErrorStyle = keyof typeof RANGE_ERRORS;
export type ResultErrorStyle = keyof typeof RESULT_ERRORS;

export type RpcSimulatorProfile = {
  latencyMs: number;
  jitterMs: number;
  /** eth_getLogs: most blocks one call may span (to - from + 1); 0 = no cap. */
  maxBlockRange: number;
  rangeErrorStyle: RangeErrorStyle;
  /** eth_getLogs: most logs one call may return; 0 = no cap. */
  maxResults: number;
  resultErrorStyle: ResultErrorStyle;
  /** Requests (or calls) per second before HTTP 429; 0 = no limit. */
  requestsPerSecond: number;
  /** Each call of a batch counts against the limit (else one per HTTP request). */
  rateLimitCountsCalls: boolean;
  /** Sent as Retry-After with a 429; undefined = no header. */
  retryAfterSeconds: number | undefined;
  /** Most calls in one batch; 0 = no cap. */
  maxBatchSize: number;
  /** Share of HTTP requests answered 500/502/503. */
  status5xxShare: number;
  /** Share of HTTP requests held `timeoutHoldMs` and then dropped without an answer. */
  timeoutShare: number;
  timeoutHoldMs: number;
  /**
   * Share of HTTP requests carrying one of `dropAnswerMethods` that reach the node and are carried
   * out, but whose answer is lost (the connection dropped): what makes a naive sender send twice.
   */
  dropAnswerShare: number;
  dropAnswerMethods: string[];
  /** Blocks the lagging node is behind the chain's head; 0 = not lagging. */
  lagBlocks: number;
  /** Share of calls answered by the lagging node (1 = every call). */
  lagShare: number;
  /** How the lagging node answers for a block it lacks: null (most nodes) or a "header not found" error. */
  lagAnswer: "null" | "header not found";
  seed: number;
};

export type RpcSimulatorOptions = Partial<RpcSimulatorProfile> & { upstream: string };

export type RpcSimulatorStats = {
  httpRequests: number;
  batches: number;
  calls: number;
  /** JSON-RPC calls received, by method (single or inside batches). */
  byMethod: Record<string, number>;
  rateLimited: number;
  status5xx: number;
  timeouts: number;
  /** Requests carried out whose answer was dropped (dropAnswerShare). */
  answersDropped: number;
  batchesRefused: number;
  rangeErrors: number;
  resultErrors: number;
  /** Calls answered by the lagging node for a block it lacked (null, error or logs left out). */
  lagged: number;
};

export type RpcSimulator = {
  url: string;
  readonly stats: RpcSimulatorStats;
  readonly profile: RpcSimulatorProfile;
  /** Changes the profile from the next request on (the PRNG keeps its sequence unless `seed` is given). */
  set(changes: Partial<RpcSimulatorProfile>): void;
  resetStats(): void;
  close(): Promise<void>;
};

export const DEFAULT_PROFILE: RpcSimulatorProfile = {
  latencyMs: 0,
  jitterMs: 0,
  maxBlockRange: 0,
  rangeErrorStyle: "publicnode",
  maxResults: 0,
  resultErrorStyle: "geth",
  requestsPerSecond: 0,
  rateLimitCountsCalls: false,
  retryAfterSeconds: undefined,
  maxBatchSize: 0,
  status5xxShare: 0,
  timeoutShare: 0,
  dropAnswerShare: 0,
  dropAnswerMethods: ["eth_sendRawTransaction"],
  timeoutHoldMs: 11_000,
  lagBlocks: 0,
  lagShare: 1,
  lagAnswer: "null",
  seed: 1,
};

const hex = (n: bigint | number) => `0x${n.toString(16)}`;

/** mulberry32: a small seeded PRNG, uniform in [0, 1). */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type RpcCall = { jsonrpc?: string; id?: unknown; method: string; params?: unknown[] };
type RpcAnswer = { jsonrpc: "2.0"; id: unknown; result?: unknown; error?: { code: number; message: string } };
type Log = { blockNumber: string };

const emptyStats = (): RpcSimulatorStats => ({
  httpRequests: 0,
  batches: 0,
  calls: 0,
  byMethod: {},
  rateLimited: 0,
  status5xx: 0,
  timeouts: 0,
  answersDropped: 0,
  batchesRefused: 0,
  rangeErrors: 0,
  resultErrors: 0,
  lagged: 0,
});

const BLOCK_TAGS = new Set(["latest", "pending", "safe", "finalized"]);

export async function startRpcSimulator(options: RpcSimulatorOptions): Promise<RpcSimulator> {
  const { upstream, ...initial } = options;
  let profile: RpcSimulatorProfile = { ...DEFAULT_PROFILE, ...initial };
  let random = seededRandom(profile.seed);
  let stats = emptyStats();
  // fixed one-second windows of the rate limit
  let windowStart = 0;
  let windowCount = 0;
  const held = new Set<http.ServerResponse>();

  async function upstreamCalls(calls: RpcCall[]): Promise<RpcAnswer[]> {
    if (calls.length === 0) return [];
    const body = calls.map((call, id) => ({ jsonrpc: "2.0", id, method: call.method, params: call.params ?? [] }));
    const response = await fetch(upstream, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    const answers = (await response.json()) as RpcAnswer[];
    const byId = new Map(answers.map((a) => [a.id, a]));
    return calls.map(
      (_, id) => byId.get(id) ?? { jsonrpc: "2.0", id, error: { code: -32603, message: "no answer upstream" } },
    );
  }

  async function head(): Promise<bigint> {
    const [answer] = await upstreamCalls([{ method: "eth_blockNumber" }]);
    return BigInt(answer!.result as string);
  }

  const blockParam = (value: unknown, lagHead: bigint): bigint | undefined => {
    if (typeof value !== "string") return undefined;
    if (value === "latest" || value === "pending") return lagHead;
    if (BLOCK_TAGS.has(value) || value === "earliest") return undefined;
    return value.startsWith("0x") ? BigInt(value) : undefined;
  };

  const lacking = (id: unknown): RpcAnswer => {
    stats.lagged++;
    return profile.lagAnswer === "null"
      ? { jsonrpc: "2.0", id, result: null }
      : { jsonrpc: "2.0", id, error: { code: -32000, message: "header not found" } };
  };

  /**
   * One call: what to ask upstream (maybe rewritten) and how to turn the upstream answer into
   * the answer sent; or a direct answer.
   */
  async function answerCall(call: RpcCall, lagHead: bigint | undefined): Promise<RpcAnswer> {
    const id = call.id ?? null;
    const params = call.params ?? [];
    const fromUpstream = async (forward: RpcCall = call) => ({ ...(await upstreamCalls([forward]))[0]!, id });
    const lag = lagHead !== undefined && random() < profile.lagShare ? lagHead : undefined;

    if (call.method === "eth_getLogs") {
      const filter = { ...(params[0] as Record<string, unknown>) };
      if (lag !== undefined && filter.blockHash === undefined) {
        const to = blockParam(filter.toBlock ?? "latest", lag);
        if (to !== undefined && to > lag) {
          stats.lagged++;
          filter.toBlock = hex(lag);
        }
      }
      const from = blockParam(filter.fromBlock ?? "latest", lag ?? (await head()));
      const to = blockParam(filter.toBlock ?? "latest", lag ?? (await head()));
      if (
        profile.maxBlockRange > 0 &&
        from !== undefined &&
        to !== undefined &&
        to - from + 1n > BigInt(profile.maxBlockRange)
      ) {
        stats.rangeErrors++;
        return { jsonrpc: "2.0", id, error: RANGE_ERRORS[profile.rangeErrorStyle](profile.maxBlockRange, from) };
      }
      if (from !== undefined && to !== undefined && from > to) return { jsonrpc: "2.0", id, result: [] };
      const answer = await fromUpstream({ ...call, params: [filter] });
      if (answer.error || !Array.isArray(answer.result)) return answer;
      let logs = answer.result as Log[];
      if (lag !== undefined) {
        const kept = logs.filter((log) => BigInt(log.blockNumber) <= lag);
        if (kept.length < logs.length) stats.lagged++;
        logs = kept;
      }
      if (profile.maxResults > 0 && logs.length > profile.maxResults) {
        stats.resultErrors++;
        // the widest range from `from` that holds at most maxResults logs (Infura's suggestion)
        const first = from ?? BigInt(logs[0]!.blockNumber);
        const cut = BigInt(logs[profile.maxResults]!.blockNumber) - 1n;
        const suggestedTo = cut >= first ? cut : first;
        return {
          jsonrpc: "2.0",
          id,
          error: RESULT_ERRORS[profile.resultErrorStyle](profile.maxResults, first, suggestedTo),
        };
      }
      return { ...answer, result: logs };
    }

    if (lag === undefined) return fromUpstream();

    switch (call.method) {
      case "eth_blockNumber":
        return { jsonrpc: "2.0", id, result: hex(lag) };
      case "eth_getBlockByNumber":
      case "eth_getBlockReceipts":
      case "eth_call":
      case "eth_getBalance":
      case "eth_getCode":
      case "eth_getStorageAt":
      case "eth_getTransactionCount": {
        const index = call.method === "eth_getBlockByNumber" || call.method === "eth_getBlockReceipts" ? 0 : 1;
        const tag = params[index] ?? "latest";
        const block = blockParam(tag, lag);
        if (block !== undefined && block > lag) {
          if (call.method === "eth_getBlockByNumber" || call.method === "eth_getBlockReceipts") return lacking(id);
          stats.lagged++;
          return { jsonrpc: "2.0", id, error: { code: -32000, message: "header not found" } };
        }
        if (tag === "latest" || tag === "pending") {
          const rewritten = [...params];
          rewritten[index] = hex(lag);
          return fromUpstream({ ...call, params: rewritten });
        }
        return fromUpstream();
      }
      case "eth_getBlockByHash":
      case "eth_getTransactionReceipt":
      case "eth_getTransactionByHash": {
        const answer = await fromUpstream();
        const result = answer.result as { number?: string; blockNumber?: string } | null | undefined;
        const number = result?.number ?? result?.blockNumber;
        if (typeof number === "string" && BigInt(number) > lag) {
          stats.lagged++;
          return { jsonrpc: "2.0", id, result: null };
        }
        return answer;
      }
      default:
        return fromUpstream();
    }
  }

  const send = (res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    held.delete(res);
    if (res.destroyed) return;
    const text = typeof body === "string" ? body : JSON.stringify(body);
    res.writeHead(status, {
      "content-type": "application/json",
      "content-length": Buffer.byteLength(text),
      ...headers,
    });
    res.end(text);
  };

  async function handle(body: string, res: http.ServerResponse): Promise<void> {
    stats.httpRequests++;
    let parsed: RpcCall | RpcCall[];
    try {
      parsed = JSON.parse(body) as RpcCall | RpcCall[];
    } catch {
      send(res, 200, { jsonrpc: "2.0", id: null, error: { code: -32700, message: "parse error" } });
      return;
    }
    const batch = Array.isArray(parsed);
    const calls: RpcCall[] = Array.isArray(parsed) ? parsed : [parsed];
    if (batch) stats.batches++;
    stats.calls += calls.length;
    for (const call of calls) stats.byMethod[call.method] = (stats.byMethod[call.method] ?? 0) + 1;

    // draws in a fixed order per request, so a run repeats
    const wait = profile.latencyMs + (profile.jitterMs > 0 ? random() * profile.jitterMs : 0);
    const timeout = profile.timeoutShare > 0 && random() < profile.timeoutShare;
    const failure = profile.status5xxShare > 0 && random() < profile.status5xxShare;
    const failStatus = [500, 502, 503][Math.floor(random() * 3)]!;
    const dropAnswer =
      profile.dropAnswerShare > 0 &&
      calls.some((call) => profile.dropAnswerMethods.includes(call.method)) &&
      random() < profile.dropAnswerShare;
    await new Promise((resolve) => setTimeout(resolve, wait));

    if (profile.requestsPerSecond > 0) {
      const now = Date.now();
      if (now - windowStart >= 1000) {
        windowStart = now;
        windowCount = 0;
      }
      const cost = profile.rateLimitCountsCalls ? calls.length : 1;
      if (windowCount + cost > profile.requestsPerSecond) {
        stats.rateLimited++;
        const headers: Record<string, string> =
          profile.retryAfterSeconds !== undefined ? { "retry-after": String(profile.retryAfterSeconds) } : {};
        send(
          res,
          429,
          {
            jsonrpc: "2.0",
            id: batch ? null : ((parsed as RpcCall).id ?? null),
            error: { code: 429, message: "Too Many Requests: request rate exceeded" },
          },
          headers,
        );
        return;
      }
      windowCount += cost;
    }
    if (timeout) {
      stats.timeouts++;
      held.add(res);
      setTimeout(() => {
        held.delete(res);
        res.destroy();
      }, profile.timeoutHoldMs);
      return;
    }
    if (failure) {
      stats.status5xx++;
      send(
        res,
        failStatus,
        failStatus === 503
          ? { error: "no backend is currently healthy to serve traffic" }
          : "<html><body>Bad Gateway</body></html>",
        {
          "content-type": failStatus === 503 ? "application/json" : "text/html",
        },
      );
      return;
    }
    if (batch && profile.maxBatchSize > 0 && calls.length > profile.maxBatchSize) {
      stats.batchesRefused++;
      send(res, 200, {
        jsonrpc: "2.0",
        id: null,
        error: { code: -32600, message: `batch too large: ${calls.length} > ${profile.maxBatchSize}` },
      });
      return;
    }
    try {
      const lagHead = profile.lagBlocks > 0 ? (await head()) - BigInt(profile.lagBlocks) : undefined;
      // each call draws from the PRNG before its first await: in order, whatever answers first
      const answers = await Promise.all(calls.map((call) => answerCall(call, lagHead)));
      if (dropAnswer) {
        stats.answersDropped++;
        res.destroy();
        return;
      }
      send(res, 200, batch ? answers : answers[0]);
    } catch (error) {
      stats.status5xx++;
      send(res, 502, { jsonrpc: "2.0", id: null, error: { code: -32603, message: `upstream: ${String(error)}` } });
    }
  }

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => void handle(Buffer.concat(chunks).toString("utf8"), res));
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    get stats() {
      return stats;
    },
    get profile() {
      return profile;
    },
    set(changes) {
      profile = { ...profile, ...changes };
      if (changes.seed !== undefined) random = seededRandom(changes.seed);
    },
    resetStats() {
      stats = emptyStats();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of held) res.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
