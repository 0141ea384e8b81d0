import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createChatApp } from "../../api/chat/app";
import { loadChatConfig } from "../../api/chat/config";
import { loadConfig } from "../../api/config";
import type { ApiDeps } from "../../api/deps";
import { createEvalApp } from "../../api/eval/app";
import { loadEvalConfig } from "../../api/eval/config";
import { createAttachmentStorage } from "../../api/eval/storage/index";
import { createLogger } from "../../api/http/logger";
import { createMemoryRateLimiter } from "../../api/http/rate-limit";
import { createPlatformApp } from "../../api/platform/app";
import { loadPlatformConfig } from "../../api/platform/config";
import { createPlatformContext } from "../../api/platform/context";

// Only the OpenAPI documents are read: no request reaches the database.
const deps = (): ApiDeps => ({
  config: loadConfig({ LOG_LEVEL: "silent" }),
  pool: {} as ApiDeps["pool"],
  db: {} as ApiDeps["db"],
  logger: createLogger("silent"),
  rateLimiter: createMemoryRateLimiter({ points: 1_000, windowSeconds: 60, keyPrefix: "operation-ids" }),
});

const storageDir = fs.mkdtempSync(path.join(os.tmpdir(), "operation-ids-"));
afterAll(() => fs.rmSync(storageDir, { recursive: true, force: true }));

type Document = { paths: Record<string, Record<string, { operationId?: string }>> };

async function operations(app: { request: (path: string) => Response | Promise<Response> }) {
  const document = (await (await app.request("/openapi.json")).json()) as Document;
  return Object.entries(document.paths).flatMap(([route, methods]) =>
    Object.entries(methods).map(([method, operation]) => ({ operation: `${method.toUpperCase()} ${route}`, id: operation.operationId })),
  );
}

describe("OpenAPI documents", () => {
  it("give every operation of the three surfaces a unique operationId", async () => {
    const platform = createPlatformApp({
      ...deps(),
      platform: createPlatformContext({ env: {}, config: loadPlatformConfig({ STATS_API_KEYS: "operation-ids" }) }),
    });
    const chat = createChatApp({ ...deps(), chat: { config: loadChatConfig({}, { protocol: null }) } });
    const evalConfig = loadEvalConfig({ EVAL_STORAGE_DIR: storageDir, EVAL_WORKER_ENABLED: "false" });
    const evaluation = createEvalApp({
      ...deps(),
      evalConfig,
      storage: createAttachmentStorage(evalConfig),
      keyIssuanceLimiter: createMemoryRateLimiter({ points: 1_000, windowSeconds: 60, keyPrefix: "operation-ids-keys" }),
    });
    const all = [...(await operations(platform)), ...(await operations(chat)), ...(await operations(evaluation))];
    expect(all.length).toBeGreaterThan(50);
    expect(all.filter((entry) => !entry.id).map((entry) => entry.operation)).toEqual([]);
    const ids = all.map((entry) => entry.id);
    expect(ids.filter((id, index) => ids.indexOf(id) !== index)).toEqual([]);
  });
});
