/**
 * The typed client (client/): its generated types match what the three apps serve at
 * `GET /openapi.json` today (else: `npm run build:client`), and it drives the real apps with
 * compiler-checked paths, bodies and answers. (devnet/demo-metadata.ts, run by
 * test/devnet/demo-metadata.test.ts, uses it against a live Platform API over HTTP.)
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createChatApp } from "../../api/chat/app";
import { loadChatConfig } from "../../api/chat/config";
import { loadConfig } from "../../api/config";
import { createEvalApp } from "../../api/eval/app";
import { createLogger } from "../../api/http/logger";
import { createMemoryRateLimiter } from "../../api/http/rate-limit";
import { createPlatformApp } from "../../api/platform/app";
import { createChatClient, createEvalClient, createPlatformClient } from "../../client/index";
import { generateClientTypes } from "../../scripts/lib/client-types";
import { startEvalHarness, type EvalHarness } from "../eval/support";

let h: EvalHarness;

beforeAll(async () => {
  h = await startEvalHarness();
});

afterAll(async () => {
  await h?.close();
});

/** The app's own `fetch`, as the client's transport: the same requests as over a socket. */
const through = (app: { fetch: (request: Request) => Response | Promise<Response> }) => ({
  fetch: async (request: Request) => app.fetch(request),
});

function deps() {
  return {
    config: loadConfig({ DATABASE_URL: h.database.url, LOG_LEVEL: "silent", PONDER_URL: "http://127.0.0.1:9" }),
    pool: h.store.pool,
    db: h.store.db,
    logger: createLogger("silent"),
    rateLimiter: createMemoryRateLimiter({ points: 1_000, windowSeconds: 60, keyPrefix: "typed-client" }),
  };
}

describe("the typed client", () => {
  it("has types generated from the apps' current OpenAPI documents (else run `npm run build:client`)", async () => {
    const files = await generateClientTypes();
    expect([...files.keys()].map((file) => path.basename(file)).sort()).toEqual(["chat.ts", "eval.ts", "platform.ts"]);
    for (const [file, expected] of files) {
      const committed = fs.existsSync(file) ? fs.readFileSync(file, "utf8") : "";
      expect(committed === expected, `${path.basename(file)} is stale: run npm run build:client`).toBe(true);
    }
  });

  it("calls the Evaluation API: issues a key, then lists pending evaluations with it", async () => {
    const app = createEvalApp({ ...deps(), keyIssuanceLimiter: createMemoryRateLimiter({ points: 10, windowSeconds: 60, keyPrefix: "tc-keys" }) });
    const client = createEvalClient("http://eval.invalid", through(app));
    const issued = await client.POST("/api/v1/keys", { body: { name: "typed-client" } });
    expect(issued.response.status).toBe(201);
    const key: string = issued.data!.key;
    expect(issued.data!.accountName).toBe("typed-client");

    const pending = await client.GET("/api/v1/agents/eval-requests/pending", {
      params: { query: { page: 1, pageSize: 5 } },
      headers: { authorization: `Bearer ${key}` },
    });
    expect(pending.response.status).toBe(200);
    expect(pending.data!.pagination).toMatchObject({ page: 1, pageSize: 5 });
    expect(Array.isArray(pending.data!.items)).toBe(true);

    const refused = await client.GET("/api/v1/agents/eval-requests/pending", { headers: { authorization: "Bearer nope" } });
    expect(refused.response.status).toBe(401);
    expect(refused.error).toEqual({ error: "Unauthorized" });
  });

  it("calls the chat server and the Platform API, with their flat errors typed", async () => {
    const chat = createChatClient("http://chat.invalid", {
      ...through(createChatApp({ ...deps(), chat: { config: loadChatConfig({}, { protocol: null }) } })),
    });
    const nonce = await chat.POST("/auth/nonce", { body: { walletAddress: "0x00000000000000000000000000000000000000bb" } });
    expect(nonce.response.status).toBe(200);
    expect(nonce.data!.message).toContain(nonce.data!.nonce);

    const platform = createPlatformClient("http://platform.invalid/", through(createPlatformApp(deps())));
    const mine = await platform.GET("/api/v1/me/pods");
    expect(mine.response.status).toBe(401);
    expect(mine.error).toEqual({ error: "Unauthorized" });
  });
});

/** Compile-time checks (tsc runs over test/): what the types refuse. Never called. */
// biome-ignore lint/suspicious/noExportsInTest: exported only so that it is not unused; tsc checks its body
export function typeChecks(): void {
  const platform = createPlatformClient("http://platform.invalid");
  const chat = createChatClient("http://chat.invalid");
  // @ts-expect-error an unknown path
  void platform.GET("/api/v1/no-such-path");
  // @ts-expect-error the path parameter is required
  void platform.GET("/api/v1/public/pods/{podId}", {});
  // @ts-expect-error the nonce request needs walletAddress
  void chat.POST("/auth/nonce", { body: {} });
}
