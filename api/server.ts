import type { IncomingMessage, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { ServerType } from "@hono/node-server";
import type { Logger } from "pino";
import { startEmbeddedPostgres, type DatabaseHandle } from "../ops/postgres";
import { createChatApp } from "./chat/app";
import type { ApiConfig } from "./config";
import { createDb } from "./db/client";
import { setReadReplicas } from "./db/read-replicas";
import { connectRateLimitRedis } from "./http/redis-rate-limiter";
import { runMigrations } from "./db/migrate";
import { type ApiDeps, loadApiChain } from "./deps";
import { createEvalApp, createEvalSettlementWorker } from "./eval/app";
import type { SettlementWorker } from "./eval/settlement/worker";
import { useChainClientForIndexerLag } from "./http/indexer-lag";
import { createLogger } from "./http/logger";
import { serveApp } from "./http/serve";
import { createPlatformApp } from "./platform/app";
import { createPlatformRuntime, type PlatformRuntime } from "./platform/app-services";
import { createRecordVerifiers } from "./ledger/ledger";
import { createWebhookWorker, type WebhookWorker } from "./platform/services/webhook-worker";
import { createReorgReconciler, reconcilerStats, type ReorgReconciler } from "./reorgs/reconciler";
import { observeReorgReconciler } from "./http/metrics";

export interface ApiServer {
  urls: { platform: string; chat: string; eval: string };
  close(): Promise<void>;
}

const CLOSE_GRACE_MS = 5_000;
const IDLE_CHECK_MS = 50;

/** The URL a client on this machine uses: a wildcard bind is reached at the loopback address. */
function urlOf(server: ServerType, host: string): string {
  const reachable = host === "0.0.0.0" || host === "::" ? "127.0.0.1" : host;
  const hostPart = reachable.includes(":") ? `[${reachable}]` : reachable;
  return `http://${hostPart}:${(server.address() as AddressInfo).port}`;
}

/** While `lifecycle.draining`, each answer tells its client to close the connection after it. */
function closeConnectionsWhileDraining(server: ServerType, lifecycle: { draining: boolean }): ServerType {
  server.prependListener("request", (_request: IncomingMessage, response: ServerResponse) => {
    if (lifecycle.draining) response.setHeader("Connection", "close");
  });
  return server;
}

function closeServer(server: ServerType): Promise<void> {
  return new Promise((resolve) => {
    if (!server.listening) return resolve();
    // A connection whose answer ends during the shutdown (an event stream) is closed once idle;
    // slow clients get a grace period, then are cut.
    const idle = setInterval(() => "closeIdleConnections" in server && server.closeIdleConnections(), IDLE_CHECK_MS);
    const force = setTimeout(() => "closeAllConnections" in server && server.closeAllConnections(), CLOSE_GRACE_MS);
    idle.unref();
    force.unref();
    server.close(() => {
      clearInterval(idle);
      clearTimeout(force);
      resolve();
    });
  });
}

/**
 * Migrates the off-chain store, then serves the Platform, Chat and Evaluation
 * apps on `config.host` (HOST, default 127.0.0.1) and their configured ports (0 picks a free one; `urls` has the real ones).
 * Without `config.databaseUrl`, it runs the project's embedded PostgreSQL.
 */
export async function startApiServer(config: ApiConfig, options: { logger?: Logger } = {}): Promise<ApiServer> {
  const logger = options.logger ?? createLogger(config.logLevel, { format: config.logFormat });
  const database: DatabaseHandle = config.databaseUrl
    ? { url: config.databaseUrl, stop: async () => undefined }
    : await startEmbeddedPostgres();
  const servers: ServerType[] = [];
  let pool: ApiDeps["pool"] | undefined;
  let readReplicas: ReturnType<typeof createDb>["readReplicas"];
  let redis: ApiDeps["redis"];
  let settlementWorker: SettlementWorker | null = null;
  let reconciler: ReorgReconciler | undefined;
  let webhookWorker: WebhookWorker | null = null;
  let platformApp: ReturnType<typeof createPlatformApp> | undefined;

  const lifecycle = { draining: false };
  const close = async () => {
    const drain = !lifecycle.draining && config.shutdownDrainMs > 0 && servers.length > 0;
    lifecycle.draining = true;
    // not ready, and every answer closes its connection, while a proxy moves to the other replicas
    if (drain) await new Promise((resolve) => setTimeout(resolve, config.shutdownDrainMs));
    await settlementWorker?.stop();
    await webhookWorker?.stop();
    await reconciler?.stop();
    // first: the event streams end now instead of holding their connections for the grace period
    platformApp?.close();
    await Promise.all(servers.map(closeServer));
    await pool?.end().catch(() => undefined);
    await readReplicas?.stop();
    setReadReplicas(undefined);
    redis?.disconnect();
    await database.stop();
  };

  try {
    await runMigrations(database.url);
    const store = createDb(database.url, {
      chainSchemaName: config.ponderViewsSchema,
      onIdleError: (err) => logger.warn({ error: err.message }, "idle database connection failed"),
      onStaleConnectionRetry: (err) => logger.warn({ error: err.message }, "read sent again on another connection"),
      readReplicas: config.readReplicas && {
        ...config.readReplicas,
        onStateChange: (status) => logger[status.state === "up" ? "info" : "warn"]({ replica: status }, `read replica ${status.name}: ${status.state}`),
      },
    });
    pool = store.pool;
    readReplicas = store.readReplicas;
    setReadReplicas(readReplicas);
    // one chain client for the process: the surfaces, the indexer-lag probe and the reconciler
    const chain = loadApiChain();
    if (chain) useChainClientForIndexerLag(store.pool, chain.client);
    if (config.redis) redis = connectRateLimitRedis(config.redis.url, { logger, commandTimeoutMs: config.redis.commandTimeoutMs });
    const deps: ApiDeps = { config, pool: store.pool, db: store.db, logger, chain, redis, lifecycle };
    // the Platform API's settings and chain, built once: its app, the reconciler and the webhook worker
    const platform = createPlatformRuntime({ chain, logger });
    platformApp = createPlatformApp({ ...deps, platform });
    for (const [app, port] of [
      [platformApp, config.ports.platform],
      [createChatApp(deps), config.ports.chat],
      [createEvalApp(deps), config.ports.eval],
    ] as const) {
      servers.push(closeConnectionsWhileDraining(await serveApp(app, config.host, port), lifecycle));
    }
    settlementWorker = createEvalSettlementWorker(deps);
    settlementWorker?.start();
    reconciler = startReorgReconciler(deps, platform);
    webhookWorker = createWebhookWorker({
      db: store.db,
      viewsSchema: config.ponderViewsSchema,
      config: platform.config.webhooks,
      logger: logger.child({ service: "webhooks" }),
    });
    webhookWorker?.start();
  } catch (error) {
    await close().catch(() => undefined);
    throw error;
  }

  const [platform, chat, evaluation] = servers as [ServerType, ServerType, ServerType];
  return {
    urls: {
      platform: urlOf(platform, config.host),
      chat: urlOf(chat, config.host),
      eval: urlOf(evaluation, config.host),
    },
    close,
  };
}

/**
 * Off-chain records follow the canonical chain (api/reorgs); nothing to follow without a chain.
 * Its receipts are asked for concurrently through the process's chain client, and each kind's
 * record is checked again with the Platform API's own verification when its transaction is mined
 * again.
 */
function startReorgReconciler(deps: ApiDeps, platform: PlatformRuntime): ReorgReconciler | undefined {
  if (!deps.chain) return undefined;
  const reconciler = createReorgReconciler({
    db: deps.db,
    client: deps.chain.client,
    logger: deps.logger,
    verifiers: createRecordVerifiers(deps.db, platform),
  });
  reconciler.start();
  observeReorgReconciler(reconcilerStats);
  return reconciler;
}
