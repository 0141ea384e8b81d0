/**
 * `GET /metrics` of the three surfaces (api/http/metrics.ts): one registry per process in
 * Prometheus text format, requests by route template, the pool, rate-limit rejections, cache
 * lookups, the indexer's lag, the settlement queue and the server wallet's pending transactions,
 * each read from the real thing (database, anvil devnet, the apps' own routes).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CoreTokenAbi } from "../../abis";
import { createChatApp } from "../../api/chat/app";
import { loadChatConfig } from "../../api/chat/config";
import { createChatChain, type ChatChain } from "../../api/chat/services/chain";
import { loadConfig } from "../../api/config";
import { type ApiDeps, createApiChain } from "../../api/deps";
import { createApp, createRouter } from "../../api/http/create-app";
import { createLogger } from "../../api/http/logger";
import { createMemoryRateLimiter } from "../../api/http/rate-limit";
import { createReadVersion } from "../../api/http/read-version";
import { createResponseCache } from "../../api/http/response-cache";
import type { AppEnv } from "../../api/http/types";
import { createPlatformApp } from "../../api/platform/app";
import { roleAccount } from "../../devnet/accounts";
import { startDevnet, type Devnet } from "../support/chain";
import { protocolOf } from "../chat/support";
import { newKey, startEvalHarness, submitOk, type EvalHarness } from "../eval/support";
import { checkpointOf } from "../support/ponder-checkpoint";

let h: EvalHarness;
let devnet: Devnet;
let chain: ChatChain;
let platform: App;
let chat: App;
let evaluation: App;
const savedRpc = process.env.PONDER_RPC_URL_8453;
const INDEXED_BLOCK = 1n;

type App = { request: (url: string, init?: RequestInit) => Response | Promise<Response> };

function deps(env: Record<string, string> = {}, points = 100_000): ApiDeps {
  return {
    config: loadConfig({ DATABASE_URL: h.database.url, LOG_LEVEL: "silent", PONDER_URL: "http://127.0.0.1:9", ...env }),
    pool: h.store.pool,
    db: h.store.db,
    logger: createLogger("silent"),
    rateLimiter: createMemoryRateLimiter({ points, windowSeconds: 60, keyPrefix: `metrics-${points}-${Math.random()}` }),
  };
}

beforeAll(async () => {
  [h, devnet] = await Promise.all([startEvalHarness(), startDevnet()]);
  // the API's own chain client (indexer lag) reads the devnet
  process.env.PONDER_RPC_URL_8453 = devnet.chain.rpcUrl;
  const indexed = await devnet.protocol.publicClient.getBlock({ blockNumber: INDEXED_BLOCK });
  // the indexer's views schema, with Ponder's checkpoint at block 1
  await h.store.pool.query(
    "CREATE SCHEMA chain; CREATE TABLE chain._ponder_checkpoint (chain_name text PRIMARY KEY, latest_checkpoint varchar(75) NOT NULL)",
  );
  await h.store.pool.query("INSERT INTO chain._ponder_checkpoint VALUES ('base', $1)", [checkpointOf(indexed.timestamp, INDEXED_BLOCK)]);

  const protocol = protocolOf(devnet.deployment, devnet.chain.rpcUrl);
  const chatConfig = loadChatConfig({}, { protocol });
  chain = createChatChain(createApiChain(protocol), chatConfig.serverPrivateKey);
  platform = createPlatformApp(deps());
  chat = createChatApp({ ...deps({}, 1), chat: { config: chatConfig, chain } });
  // the eval app last: the settlement queue it registers is the harness's clock's
  evaluation = h.buildApp();
}, 240_000);

afterAll(async () => {
  if (savedRpc === undefined) delete process.env.PONDER_RPC_URL_8453;
  else process.env.PONDER_RPC_URL_8453 = savedRpc;
  await h?.close();
  await devnet?.chain.stop();
});

async function scrape(app: App = platform, headers: Record<string, string> = {}): Promise<string> {
  const response = await app.request("/metrics", { headers });
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
  return response.text();
}

/** The samples of `name` as [labels, value] pairs. */
function samples(text: string, name: string): Array<{ labels: Record<string, string>; value: number }> {
  const result: Array<{ labels: Record<string, string>; value: number }> = [];
  for (const line of text.split("\n")) {
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const labels = Object.fromEntries([...(match[2] ?? "").matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1]!, m[2]!]));
    result.push({ labels, value: Number(match[3]) });
  }
  return result;
}

function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  return samples(text, name).find((s) => Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value;
}

describe("GET /metrics", () => {
  it("labels requests by route template, never by raw path", async () => {
    const podId = "4f1c2a9e-8d3b-4c55-9e0a-1b2c3d4e5f60";
    const sessionId = "5d6e7f80-1a2b-4c3d-8e9f-0a1b2c3d4e5f";
    const evalId = "ev_metrics_raw_id_123";
    expect((await platform.request(`/api/v1/me/pods/${podId}`)).status).toBe(401);
    expect((await platform.request(`/api/v1/no-such-route/${podId}`)).status).toBe(404);
    expect((await chat.request(`/chat/${sessionId}/history`)).status).toBe(401);
    expect((await evaluation.request(`/api/v1/agents/eval-requests/${evalId}`)).status).toBe(401);

    const text = await scrape();
    expect(sample(text, "datamarket_http_requests_total", { surface: "platform", method: "GET", route: "/api/v1/me/pods/:id", status: "401" })).toBe(1);
    expect(sample(text, "datamarket_http_requests_total", { surface: "platform", route: "unmatched", status: "404" })).toBe(1);
    expect(sample(text, "datamarket_http_requests_total", { surface: "chat", route: "/chat/:sessionId/history", status: "401" })).toBe(1);
    expect(
      sample(text, "datamarket_http_requests_total", { surface: "eval", route: "/api/v1/agents/eval-requests/:evalId", status: "401" }),
    ).toBe(1);
    expect(
      sample(text, "datamarket_http_request_duration_seconds_count", { surface: "chat", route: "/chat/:sessionId/history" }),
    ).toBe(1);
    expect(samples(text, "datamarket_http_request_duration_seconds_bucket").length).toBeGreaterThan(0);
    for (const raw of [podId, sessionId, evalId, "no-such-route"]) expect(text).not.toContain(raw);
  });

  it("does not count /metrics itself and never rate-limits it", async () => {
    // the chat app's budget is one request per window
    for (let i = 0; i < 3; i++) await scrape(chat);
    const text = await scrape(chat);
    expect(samples(text, "datamarket_http_requests_total").some((s) => s.labels.route === "/metrics")).toBe(false);
  });

  it("reports the pool's connections", async () => {
    const text = await scrape();
    expect(sample(text, "datamarket_db_pool_connections")).toBeGreaterThanOrEqual(1);
    expect(sample(text, "datamarket_db_pool_idle_connections")).toBeGreaterThanOrEqual(0);
    expect(sample(text, "datamarket_db_pool_waiting_requests")).toBe(0);
    expect(sample(text, "datamarket_db_pool_max_connections")).toBe(h.store.pool.options.max);
    expect(sample(text, "datamarket_bulkhead_tasks", { bulkhead: "dataset_downloads", state: "active" })).toBe(0);
    expect(sample(text, "datamarket_bulkhead_tasks", { bulkhead: "dataset_downloads", state: "queued" })).toBe(0);
    // and the process's own (prom-client's default metrics)
    expect(sample(text, "process_cpu_seconds_total")).toBeGreaterThan(0);
  });

  it("counts a rate-limit rejection when a 429 is answered", async () => {
    const before = sample(await scrape(), "datamarket_rate_limit_rejections_total", { surface: "chat", budget: "ip" }) ?? 0;
    const statuses: number[] = [];
    for (let i = 0; i < 2; i++) statuses.push((await chat.request("/chat/x/history")).status);
    expect(statuses).toContain(429);
    const rejected = statuses.filter((status) => status === 429).length;
    const after = sample(await scrape(), "datamarket_rate_limit_rejections_total", { surface: "chat", budget: "ip" });
    expect(after).toBe(before + rejected);
  });

  it("reports the indexer's lag behind the chain head in blocks and seconds", async () => {
    const head = await devnet.protocol.publicClient.getBlock({ blockTag: "latest" });
    const indexed = await devnet.protocol.publicClient.getBlock({ blockNumber: INDEXED_BLOCK });
    const text = await scrape();
    expect(sample(text, "datamarket_indexer_lag_blocks")).toBe(Number(head.number - INDEXED_BLOCK));
    expect(sample(text, "datamarket_indexer_lag_seconds")).toBe(Number(head.timestamp - indexed.timestamp));
  });

  it("reports the settlement queue: due, unsettled evaluations and the age of the oldest", async () => {
    const key = await newKey(h, "metrics-account");
    await submitOk(h, key, { settlementMinutes: 10 });
    let text = await scrape(evaluation);
    expect(sample(text, "datamarket_eval_settlement_due")).toBe(0);
    expect(sample(text, "datamarket_eval_settlement_lag_seconds")).toBe(0);

    h.clock.advanceMinutes(12); // the window closed two minutes ago; the worker is off
    text = await scrape(evaluation);
    expect(sample(text, "datamarket_eval_settlement_due")).toBe(1);
    expect(sample(text, "datamarket_eval_settlement_lag_seconds")).toBe(120);
  });

  it("counts the response cache's hits and misses by surface", async () => {
    const router = createRouter();
    router.get("/api/v1/public/things", (c) => c.json({ data: { things: 3 } }, 200));
    const cache = createResponseCache({ version: createReadVersion(h.store.pool, "chain"), cacheable: (path) => path.includes("/public/") });
    const app = createApp<AppEnv>({ logger: createLogger("silent"), surface: { name: "platform", config: deps().config } });
    app.use("/api/v1/*", cache.middleware);
    app.route("/", router);

    const counts = (text: string) => ({
      hit: sample(text, "datamarket_cache_lookups_total", { surface: "platform", cache: "response", result: "hit" }) ?? 0,
      miss: sample(text, "datamarket_cache_lookups_total", { surface: "platform", cache: "response", result: "miss" }) ?? 0,
    });
    const before = counts(await scrape());
    expect((await app.request("/api/v1/public/things")).headers.get("x-cache")).toBe("miss");
    expect((await app.request("/api/v1/public/things")).headers.get("x-cache")).toBe("hit");
    expect((await app.request("/api/v1/public/things")).headers.get("x-cache")).toBe("hit");
    expect(counts(await scrape())).toEqual({ hit: before.hit + 2, miss: before.miss + 1 });
  });

  it("reports the server wallet's transactions sent and not yet mined", async () => {
    const wallet = chain.wallet!;
    const labels = { wallet: wallet.address };
    expect(sample(await scrape(chat), "datamarket_server_wallet_pending_transactions", labels)).toBe(0);
    await devnet.protocol.testClient.setAutomine(false);
    try {
      await wallet.send({
        address: chain.addresses.coreToken,
        abi: CoreTokenAbi,
        functionName: "approve",
        args: [roleAccount("voter1").address, 1n],
      });
      expect(sample(await scrape(chat), "datamarket_server_wallet_pending_transactions", labels)).toBe(1);
      await devnet.protocol.testClient.mine({ blocks: 1 });
      expect(sample(await scrape(chat), "datamarket_server_wallet_pending_transactions", labels)).toBe(0);
    } finally {
      await devnet.protocol.testClient.setAutomine(true);
    }
  });
});

describe("unknown values", () => {
  it("leave the series out instead of reporting a number: the indexer's lag before its first checkpoint", async () => {
    // a surface whose views schema has no checkpoint yet (the process reports its newest probe)
    const app = createPlatformApp(deps({ PONDER_VIEWS_SCHEMA: "metrics_no_checkpoint" }));
    const text = await scrape(app);
    expect(text).toContain("# TYPE datamarket_indexer_lag_blocks gauge");
    expect(samples(text, "datamarket_indexer_lag_blocks")).toEqual([]);
    expect(samples(text, "datamarket_indexer_lag_seconds")).toEqual([]);
    // the others are still there
    expect(sample(text, "datamarket_db_pool_max_connections")).toBe(h.store.pool.options.max);
  });
});

describe("access to /metrics", () => {
  const token = "metrics-token-0123456789abcdef";

  it("requires the Bearer METRICS_TOKEN when one is set", async () => {
    const app = createPlatformApp(deps({ METRICS_TOKEN: token }));
    const missing = await app.request("/metrics");
    expect(missing.status).toBe(401);
    expect(await missing.json()).toEqual({ error: "Unauthorized" });
    expect(missing.headers.get("www-authenticate")).toMatch(/^Bearer/);
    const wrong = await app.request("/metrics", { headers: { authorization: `Bearer ${token}x` } });
    expect(wrong.status).toBe(401);
    const text = await scrape(app, { authorization: `Bearer ${token}` });
    expect(text).toContain("# TYPE datamarket_http_requests_total counter");
  });

  it("is refused on a non-loopback bind without a token, and open on a loopback one", async () => {
    const exposed = createPlatformApp(deps({ HOST: "0.0.0.0" }));
    const refused = await exposed.request("/metrics");
    expect(refused.status).toBe(403);
    expect(await refused.json()).toEqual({ error: "Set METRICS_TOKEN to serve /metrics on a non-loopback HOST" });
    const withToken = createPlatformApp(deps({ HOST: "0.0.0.0", METRICS_TOKEN: token }));
    await scrape(withToken, { authorization: `Bearer ${token}` });
    await scrape(createPlatformApp(deps({ HOST: "127.0.0.1" })));
  });
});
