/**
 * The whole stack as `npm start` runs it, for tests that need all of it: a seeded devnet, a fresh
 * database with the off-chain migrations, the indexer (its own Ponder schema, views in `chain`)
 * caught up with the chain, and the Platform API served over HTTP on a free port. One factory, so
 * the tests that read the seeded market (demo metadata, the GraphQL guide, the playground) set it up
 * the same way.
 */
import fs from "node:fs";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { serve, type ServerType } from "@hono/node-server";
import { loadConfig } from "../../api/config";
import { createDb, type Database } from "../../api/db/client";
import { runMigrations } from "../../api/db/migrate";
import { loadIdpConfig } from "../../api/http/auth/idp-cookie";
import { createLogger } from "../../api/http/logger";
import { createPlatformApp } from "../../api/platform/app";
import { loadPlatformConfig } from "../../api/platform/config";
import { createPlatformRuntime, type PlatformDeps } from "../../api/platform/app-services";
import { createChainClient } from "../../chain/client";
import { writeDeployment } from "../../chain/deployments";
import type { ProtocolConfig } from "../../chain/protocol-config";
import { startIndexer, type Indexer } from "../../ops/indexer";
import { startDevnet, type Devnet } from "./chain";
import { useFreshDatabase, type FreshDatabase } from "./database";

export interface SeededStack {
  tempDir: string;
  /** The local identity provider's key file the Platform API trusts (created on first use). */
  keyFile: string;
  devnet: Devnet;
  database: FreshDatabase;
  store: Database;
  indexer: Indexer;
  platformDeps: PlatformDeps;
  /** The Platform API's origin, e.g. `http://127.0.0.1:41234` (routes under `/api/v1`). */
  platformUrl: string;
  /** Stops everything started, in reverse order; safe to call after a partial start. */
  stop(): Promise<void>;
}

export interface SeededStackOptions {
  /** Names the temp folder, the Ponder schema and the stats key: one per test file. */
  name: string;
  /** Give the Platform API the indexer's URL (`PONDER_URL`), for the GraphQL forwarding route. */
  withPonderUrl?: boolean;
  rateLimiter?: PlatformDeps["rateLimiter"];
  maxConnections?: number;
}

export async function startSeededStack(options: SeededStackOptions): Promise<SeededStack> {
  const id = options.name.replace(/[^a-z0-9]+/gi, "_").toLowerCase();
  const tempDir = fs.mkdtempSync(path.join(os.tmpdir(), `${options.name}-`));
  const keyFile = path.join(tempDir, "idp-key.json");
  const started: Partial<SeededStack> & { server?: ServerType } = { tempDir, keyFile };
  const stop = async () => {
    const { server } = started;
    await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
    await started.indexer?.stop().catch(() => undefined);
    await started.store?.pool.end().catch(() => undefined);
    await started.devnet?.chain.stop().catch(() => undefined);
    await started.database?.drop().catch(() => undefined);
    fs.rmSync(tempDir, { recursive: true, force: true });
  };
  try {
    const [devnet, database] = await Promise.all([startDevnet({ seed: true }), useFreshDatabase()]);
    Object.assign(started, { devnet, database });
    await runMigrations(database.url);
    const deploymentsFile = path.join(tempDir, "deployments.json");
    writeDeployment(devnet.deployment, deploymentsFile);
    const indexer = await startIndexer({
      databaseUrl: database.url,
      schema: `${id}_test`.slice(0, 45),
      viewsSchema: "chain",
      rpcUrl: devnet.chain.rpcUrl,
      deploymentsFile,
      logLevel: "warn",
      logFile: path.join(tempDir, "indexer.log"),
    });
    started.indexer = indexer;

    const config = loadConfig({
      LOG_LEVEL: "silent",
      PONDER_VIEWS_SCHEMA: "chain",
      DATABASE_URL: database.url,
      ...(options.withPonderUrl ? { PONDER_URL: indexer.url } : {}),
    });
    const store = createDb(database.url, { chainSchemaName: "chain", maxConnections: options.maxConnections ?? 8 });
    started.store = store;
    const protocol: ProtocolConfig = { rpcUrl: devnet.chain.rpcUrl, local: true, contracts: devnet.deployment.contracts };
    const platform = createPlatformRuntime({
      env: {},
      config: loadPlatformConfig({ STATS_API_KEYS: `${options.name}-test` }),
      chain: { protocol, client: createChainClient(protocol) },
      idp: await loadIdpConfig({ IDP_LOCAL_KEY_FILE: keyFile }),
    });
    // without a rateLimiter: the default (PostgreSQL) one, as in `npm start`
    const platformDeps: PlatformDeps = {
      config,
      pool: store.pool,
      db: store.db,
      logger: createLogger("silent"),
      platform,
      ...(options.rateLimiter ? { rateLimiter: options.rateLimiter } : {}),
    };
    const app = createPlatformApp(platformDeps);
    const server = await new Promise<ServerType>((resolve) => {
      const s = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, () => resolve(s));
    });
    started.server = server;
    const platformUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

    await indexer.waitUntilReady(120_000);
    await indexer.waitForBlock(await devnet.protocol.publicClient.getBlockNumber({ cacheTime: 0 }), 60_000);
    return { tempDir, keyFile, devnet, database, store, indexer, platformDeps, platformUrl, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
