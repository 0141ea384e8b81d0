/**
 * The three surfaces built for reading their OpenAPI documents (and docs pages) in a test,
 * without a database or a chain: nothing the document describes is called.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Logger } from "pino";
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
import { createPlatformRuntime } from "../../api/platform/app-services";

export type SurfaceName = "platform" | "chat" | "eval";

export interface DocumentOnlySurfaces {
  apps: Record<SurfaceName, { request: (path: string, init?: RequestInit) => Response | Promise<Response> }>;
  /** Removes the evaluation store's temporary directory. */
  cleanup(): void;
}

export interface DocumentOnlyOptions {
  /** Default: a silent logger. */
  logger?: Logger;
  /** Requests per minute and client of each surface's in-memory rate limiter; default 1000. */
  rateLimitPoints?: number;
}

export function documentOnlySurfaces({ logger = createLogger("silent"), rateLimitPoints = 1_000 }: DocumentOnlyOptions = {}): DocumentOnlySurfaces {
  const deps = (keyPrefix: string): ApiDeps => ({
    config: loadConfig({ LOG_LEVEL: "silent" }),
    pool: {} as ApiDeps["pool"],
    db: {} as ApiDeps["db"],
    logger,
    rateLimiter: createMemoryRateLimiter({ points: rateLimitPoints, windowSeconds: 60, keyPrefix }),
  });
  const storageDir = fs.mkdtempSync(path.join(os.tmpdir(), "openapi-documents-"));
  const platform = createPlatformApp({
    ...deps("platform-documents"),
    platform: createPlatformRuntime({ env: {}, config: loadPlatformConfig({ STATS_API_KEYS: "openapi-documents" }) }),
  });
  const chat = createChatApp({ ...deps("chat-documents"), chat: { config: loadChatConfig({}, { protocol: null }) } });
  const evalConfig = loadEvalConfig({ EVAL_STORAGE_DIR: storageDir, EVAL_WORKER_ENABLED: "false" });
  const evaluation = createEvalApp({
    ...deps("eval-documents"),
    evalConfig,
    storage: createAttachmentStorage(evalConfig),
    keyIssuanceLimiter: createMemoryRateLimiter({ points: rateLimitPoints, windowSeconds: 60, keyPrefix: "eval-documents-keys" }),
  });
  return {
    apps: { platform, chat, eval: evaluation },
    cleanup: () => fs.rmSync(storageDir, { recursive: true, force: true }),
  };
}
