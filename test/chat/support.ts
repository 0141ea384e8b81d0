import http from "node:http";
import type { AddressInfo } from "node:net";
import type { PrivateKeyAccount } from "viem/accounts";
import { createChatApp, type ChatAppOptions } from "../../api/chat/app";
import { loadChatConfig } from "../../api/chat/config";
import { loadConfig } from "../../api/config";
import { createDb, type Database } from "../../api/db/client";
import { runMigrations } from "../../api/db/migrate";
import { createLogger } from "../../api/http/logger";
import { createMemoryRateLimiter } from "../../api/http/rate-limit";
import type { ProtocolConfig } from "../../chain/protocol-config";
import type { Deployment } from "../../chain/deployments";
import { useFreshDatabase, type FreshDatabase } from "../support/database";

/** Nothing listens on port 9 (discard): connections there fail at once. */
export const UNREACHABLE_URL = "http://127.0.0.1:9";

export interface LocalServer {
  url: string;
  requests: { method: string; url: string; headers: http.IncomingHttpHeaders; body: string }[];
  close(): Promise<void>;
}

/** An HTTP server on 127.0.0.1 with a handler; records every request. */
export async function startLocalServer(
  handler: (req: http.IncomingMessage, body: string, res: http.ServerResponse) => unknown,
): Promise<LocalServer> {
  const requests: LocalServer["requests"] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      requests.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body });
      Promise.resolve()
        .then(() => handler(req, body, res))
        .catch(() => {
        if (!res.headersSent) res.writeHead(500);
        res.end();
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export interface FakePost {
  text: string;
  authorName?: string;
  handle?: string;
}

/**
 * A fake post source speaking both oEmbed (`GET /oembed?url=...`) and the X API
 * (`GET /2/tweets/{id}`), keyed by status id. Unknown ids are 404 (oEmbed) or an `errors`
 * body (X API). Special ids: 5550001 never answers in time, 5550002 answers too large,
 * 5550003 redirects to another host, 5550004 redirects on the same host, 5550005 answers 500.
 */
export async function startFakePostSource(posts: Map<string, FakePost>): Promise<LocalServer & { bearer: string }> {
  const bearer = "test-bearer-token";
  let self = "";
  const server = await startLocalServer(async (req, _body, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const json = (status: number, body: unknown) => res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
    let statusId: string | undefined;
    let kind: "oembed" | "x-api" | undefined;
    if (url.pathname === "/oembed" || url.pathname === "/moved/oembed") {
      kind = "oembed";
      statusId = /\/status\/(\d+)/.exec(url.searchParams.get("url") ?? "")?.[1];
    } else if (url.pathname.startsWith("/2/tweets/")) {
      kind = "x-api";
      if (req.headers.authorization !== `Bearer ${bearer}`) return json(401, { title: "Unauthorized" });
      statusId = url.pathname.split("/")[3];
    }
    if (!kind || !statusId) return json(404, { error: "not found" });
    if (statusId === "5550001") return; // never answers
    if (statusId === "5550002") return json(200, { html: `<p>${"x".repeat(600_000)}</p>` });
    if (statusId === "5550003") return res.writeHead(302, { location: `${UNREACHABLE_URL}/oembed${url.search}` }).end();
    if (statusId === "5550004" && url.pathname === "/oembed") {
      return res.writeHead(301, { location: `${self}/moved/oembed${url.search}` }).end();
    }
    if (statusId === "5550005") return json(500, { error: "boom" });
    const post = statusId === "5550004" ? { text: "A redirected post about open data markets and curation.", handle: "alice" } : posts.get(statusId);
    if (!post) return kind === "oembed" ? json(404, { error: "not found" }) : json(200, { errors: [{ title: "Not Found Error" }] });
    const handle = post.handle ?? "alice";
    const name = post.authorName ?? "Alice";
    if (kind === "oembed") {
      const escaped = post.text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/\n/g, "<br>");
      return json(200, {
        url: `${self}/${handle}/status/${statusId}`,
        author_name: name,
        author_url: `${self}/${handle}`,
        html: `<blockquote class="twitter-tweet"><p lang="en" dir="ltr">${escaped}</p>&mdash; ${name} (@${handle}) <a href="${self}/${handle}/status/${statusId}">May 1, 2026</a></blockquote>\n`,
        type: "rich",
        version: "1.0",
      });
    }
    return json(200, {
      data: { id: statusId, text: post.text, author_id: "42" },
      includes: { users: [{ id: "42", name, username: handle }] },
    });
  });
  self = server.url;
  return { ...server, bearer };
}

export interface FakeLlm extends LocalServer {
  /** The `messages` of every chat-completions request. */
  calls: { messages: { role: string; content: string }[] }[];
}

/**
 * A fake OpenAI-compatible server (`POST /v1/chat/completions`): `answer` gets the request's
 * messages and returns the assistant's text.
 */
export async function startFakeLlm(answer: (messages: { role: string; content: string }[]) => string): Promise<FakeLlm> {
  const calls: FakeLlm["calls"] = [];
  const server = await startLocalServer((req, body, res) => {
    if (req.method !== "POST" || !req.url?.endsWith("/chat/completions")) {
      return void res.writeHead(404, { "content-type": "application/json" }).end("{}");
    }
    const request = JSON.parse(body) as { model: string; messages: { role: string; content: string }[] };
    calls.push({ messages: request.messages });
    const content = answer(request.messages);
    res.writeHead(200, { "content-type": "application/json" }).end(
      JSON.stringify({
        id: `chatcmpl-${calls.length}`,
        object: "chat.completion",
        created: Math.floor(Date.now() / 1000),
        model: request.model,
        choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }],
        usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
      }),
    );
  });
  return Object.assign(server, { calls });
}

export function protocolOf(deployment: Deployment, rpcUrl: string): ProtocolConfig {
  return { rpcUrl, local: true, contracts: deployment.contracts };
}

export interface ChatTestServer {
  app: ReturnType<typeof createChatApp>;
  store: Database;
  database: FreshDatabase;
  close(): Promise<void>;
}

/** A migrated fresh database and a chat app over it (no chain unless `protocol` is given). */
export async function startChatApp(options: {
  env?: Record<string, string>;
  protocol?: ProtocolConfig | null;
  chat?: Omit<ChatAppOptions, "config">;
  database?: FreshDatabase;
  viewsSchema?: string;
  /** Extra API settings (e.g. TRUST_PROXY) and a rate limiter other than the generous default. */
  apiEnv?: Record<string, string>;
  rateLimiter?: ReturnType<typeof createMemoryRateLimiter>;
} = {}): Promise<ChatTestServer> {
  const database = options.database ?? (await useFreshDatabase());
  await runMigrations(database.url);
  const store = createDb(database.url);
  const apiConfig = loadConfig({
    DATABASE_URL: database.url,
    LOG_LEVEL: "silent",
    PONDER_URL: UNREACHABLE_URL,
    ...(options.viewsSchema ? { PONDER_VIEWS_SCHEMA: options.viewsSchema } : {}),
    ...options.apiEnv,
  });
  const config = loadChatConfig({ CHAT_OEMBED_URL: `${UNREACHABLE_URL}/oembed`, ...options.env }, { protocol: options.protocol ?? null });
  const app = createChatApp({
    config: apiConfig,
    pool: store.pool,
    db: store.db,
    logger: createLogger("silent"),
    rateLimiter: options.rateLimiter ?? createMemoryRateLimiter({ points: 100_000, windowSeconds: 60, keyPrefix: "chat-test" }),
    chat: { ...options.chat, config },
  });
  return {
    app,
    store,
    database,
    close: async () => {
      await store.pool.end();
      if (!options.database) await database.drop();
    },
  };
}

type AppLike = { request: (path: string, init?: RequestInit) => Response | Promise<Response> };

export async function postJson(app: AppLike, path: string, body: unknown, token?: string): Promise<Response> {
  return app.request(path, {
    method: "POST",
    headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

export async function getJson(app: AppLike, path: string, token?: string): Promise<Response> {
  return app.request(path, { headers: token ? { authorization: `Bearer ${token}` } : {} });
}

/** The wallet flow: nonce, personal_sign of the message, verify; returns the session token. */
export async function signIn(app: AppLike, account: PrivateKeyAccount | { address: `0x${string}`; signMessage: PrivateKeyAccount["signMessage"] }): Promise<string> {
  const nonceResponse = await postJson(app, "/auth/nonce", { walletAddress: account.address });
  if (nonceResponse.status !== 200) throw new Error(`nonce: ${nonceResponse.status} ${await nonceResponse.text()}`);
  const { nonce, message } = (await nonceResponse.json()) as { nonce: string; message: string };
  const signature = await account.signMessage({ message });
  const verify = await postJson(app, "/auth/verify", { walletAddress: account.address, signature, nonce });
  if (verify.status !== 200) throw new Error(`verify: ${verify.status} ${await verify.text()}`);
  return ((await verify.json()) as { token: string }).token;
}
