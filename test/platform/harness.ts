/**
 * Shared by the Platform API tests: one devnet (anvil + the protocol), one fresh database with the
 * off-chain migrations, optionally one indexer (Ponder, views in `chain`) and the real platform app
 * built with injected deps (the devnet's chain, a local identity-provider key, a stats key, a fixed
 * CORE price, a memory rate limiter). One harness per test file:
 *
 *   const h = usePlatformHarness({ indexer: true });
 *   const alice = await h().signIn("alice", roleAccount("curatorA"));
 *   const res = await alice.post("/api/v1/me/subnets", body);
 */
import fs from "node:fs";
import { exportJWK, generateKeyPair } from "jose";
import os from "node:os";
import path from "node:path";
import {
  encodeFunctionData,
  maxUint256,
  parseEther,
  type Abi,
  type Account,
  type Hash,
  type Hex,
  type TransactionReceipt,
} from "viem";
import { afterAll, beforeAll } from "vitest";
import { writeDeployment, type ContractName } from "../../chain/deployments";
import { createChainClient } from "../../chain/client";
import type { ProtocolConfig } from "../../chain/protocol-config";
import { loadConfig } from "../../api/config";
import { createDb, type Database } from "../../api/db/client";
import { runMigrations } from "../../api/db/migrate";
import { loadIdpConfig, localIdpKeyPair, signLocalIdpToken, IDP_COOKIE, type LocalTokenClaims } from "../../api/http/auth/idp-cookie";
import { createLogger } from "../../api/http/logger";
import { createMemoryRateLimiter } from "../../api/http/rate-limit";
import { createPlatformApp } from "../../api/platform/app";
import { loadPlatformConfig } from "../../api/platform/config";
import { createPlatformRuntime, type PlatformRuntime, type PlatformDeps } from "../../api/platform/app-services";
import type { PriceSource } from "../../api/platform/services/price";
import { roleAccount } from "../../devnet/accounts";
import type { DeployOptions } from "../../devnet/deploy";
import { startIndexer, type Indexer } from "../../ops/indexer";
import { startDevnet, type Devnet } from "../support/chain";
import { useFreshDatabase, type FreshDatabase } from "../support/database";

export const BASE = "/api/v1";
export const STATS_KEY = "test-stats-key";
export const CORE = (n: number | string) => parseEther(String(n));

export type HarnessOptions = DeployOptions & {
  /** Seed the devnet with the demo data (devnet/seed.ts) before the app starts. */
  seed?: boolean;
  /** Start the indexer (needed by every route that reads chain state). */
  indexer?: boolean;
  /** Extra platform environment (e.g. CORE_PRICE_USD). */
  platformEnv?: Record<string, string>;
  price?: PriceSource;
};

export type RequestOptions = { cookie?: string; headers?: Record<string, string>; body?: unknown; method?: string };

/** A signed-in user: its cookie and request helpers. */
export type Session = {
  sub: string;
  account: Account | undefined;
  wallet: `0x${string}` | undefined;
  cookie: string;
  get(path: string): Promise<Response>;
  post(path: string, body?: unknown): Promise<Response>;
};

export type PlatformHarness = {
  devnet: Devnet;
  database: FreshDatabase;
  store: Database;
  runtime: PlatformRuntime;
  deps: PlatformDeps;
  app: ReturnType<typeof createPlatformApp>;
  indexer: Indexer | undefined;
  /** The app's last warnings and errors (its log is otherwise off): they name a 503's cause. */
  warnings: string[];
  request(path: string, options?: RequestOptions): Promise<Response>;
  /** The `Cookie` header value of a token the local identity provider signed. */
  cookie(claims: LocalTokenClaims, options?: { expiresIn?: string | number; issuer?: string; audience?: string }): Promise<string>;
  signIn(sub: string, account?: Account, username?: string): Promise<Session>;
  /** Sends a contract call from `account` and waits for its receipt (throws on revert). */
  write(account: Account, contract: ContractName, functionName: string, args?: readonly unknown[]): Promise<TransactionReceipt>;
  /** A contract call of `account`, signed and not sent: the same bytes can be mined again after a reorg. */
  signed(account: Account, contract: ContractName, functionName: string, args?: readonly unknown[]): Promise<Hex>;
  /** Sends signed bytes and waits for their receipt (whatever its status). */
  sendRaw(raw: Hex): Promise<TransactionReceipt>;
  /** Sends a call that reverts on chain (gas given, no simulation) and returns its mined hash. */
  sendReverted(account: Account, contract: ContractName, functionName: string, args?: readonly unknown[]): Promise<Hash>;
  /** Mints CORE and the demo token to `account` and approves the protocol contracts. */
  fund(account: Account, amount?: bigint): Promise<void>;
  /** Resolves once the indexer has indexed the chain's current head. */
  caughtUp(): Promise<void>;
};

function keepLast(lines: string[], line: string, max: number): void {
  lines.push(line);
  if (lines.length > max) lines.shift();
}

/** Starts everything in `beforeAll`, stops it in `afterAll`; returns the harness accessor. */
export function usePlatformHarness(options: HarnessOptions = {}): () => PlatformHarness {
  let harness: PlatformHarness | undefined;
  let stop: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    ({ harness, stop } = await startPlatformHarness(options));
  });
  afterAll(async () => {
    await stop?.();
  });
  return () => {
    if (!harness) throw new Error("platform harness not started");
    return harness;
  };
}

export async function startPlatformHarness(
  options: HarnessOptions = {},
): Promise<{ harness: PlatformHarness; stop: () => Promise<void> }> {
  const tempDir = fs.mkdtempSync(path.join(os.tmpdir(), "platform-test-"));
  const keyFile = path.join(tempDir, "idp-key.json");
  const { seed, indexer: withIndexer, platformEnv, price, ...deployOptions } = options;
  const [devnet, database] = await Promise.all([startDevnet({ ...deployOptions, seed }), useFreshDatabase()]);
  await runMigrations(database.url);

  let indexer: Indexer | undefined;
  if (withIndexer) {
    const deploymentsFile = path.join(tempDir, "deployments.json");
    writeDeployment(devnet.deployment, deploymentsFile);
    const verbose = process.env.PLATFORM_TEST_INDEXER_LOGS === "1";
    indexer = await startIndexer({
      databaseUrl: database.url,
      schema: "platform_test",
      viewsSchema: "chain",
      rpcUrl: devnet.chain.rpcUrl,
      deploymentsFile,
      logLevel: "warn",
      ...(verbose ? { logPrefix: "[indexer] " } : { logFile: path.join(tempDir, "indexer.log") }),
    });
  }

  const config = loadConfig({ LOG_LEVEL: "silent", PONDER_VIEWS_SCHEMA: "chain", DATABASE_URL: database.url });
  const warnings: string[] = [];
  const store = createDb(database.url, {
    chainSchemaName: "chain",
    maxConnections: 8,
    onStaleConnectionRetry: (error) => keepLast(warnings, `read sent again after a stale connection: ${error.message}`, 50),
  });
  const protocol: ProtocolConfig = {
    rpcUrl: devnet.chain.rpcUrl,
    local: true,
    contracts: devnet.deployment.contracts,
  };
  // the key pair is created by the first of these calls; do not race them
  const idp = await loadIdpConfig({ IDP_LOCAL_KEY_FILE: keyFile });
  const { privateJwk } = await localIdpKeyPair(keyFile);
  const runtime = createPlatformRuntime({
    env: {},
    config: loadPlatformConfig({ STATS_API_KEYS: STATS_KEY, ...platformEnv }),
    chain: { protocol, client: createChainClient(protocol) },
    idp,
    price,
  });
  const deps: PlatformDeps = {
    config,
    pool: store.pool,
    db: store.db,
    logger: createLogger("warn", { destination: { write: (line: string) => keepLast(warnings, line.trimEnd(), 50) } }),
    rateLimiter: createMemoryRateLimiter({ keyPrefix: "test", points: 1_000_000, windowSeconds: 60 }),
    platform: runtime,
  };
  const app = createPlatformApp(deps);
  const p = devnet.protocol;

  async function request(urlPath: string, { cookie, headers = {}, body, method }: RequestOptions = {}) {
    const allHeaders: Record<string, string> = { ...headers };
    if (cookie) allHeaders.Cookie = cookie;
    if (body !== undefined) allHeaders["Content-Type"] ??= "application/json";
    return app.request(urlPath, {
      method: method ?? (body === undefined ? "GET" : "POST"),
      headers: allHeaders,
      body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
    });
  }

  async function cookie(claims: LocalTokenClaims, signOptions: { expiresIn?: string | number; issuer?: string; audience?: string } = {}) {
    return `${IDP_COOKIE}=${await signLocalIdpToken(claims, { privateJwk, ...signOptions })}`;
  }

  // One transaction at a time per sender: viem picks nonces from the chain, so parallel sends collide.
  const queues = new Map<string, Promise<unknown>>();
  function serial<T>(account: Account, send: () => Promise<T>): Promise<T> {
    const previous = queues.get(account.address) ?? Promise.resolve();
    const next = previous.catch(() => undefined).then(send);
    queues.set(account.address, next);
    return next;
  }

  const harness: PlatformHarness = {
    devnet,
    database,
    store,
    runtime,
    deps,
    app,
    indexer,
    warnings,
    request,
    cookie,
    async signIn(sub, account, username) {
      const value = await cookie({ sub, wallet: account?.address, username: username ?? sub });
      return {
        sub,
        account,
        wallet: account?.address.toLowerCase() as `0x${string}` | undefined,
        cookie: value,
        get: (urlPath) => request(urlPath, { cookie: value }),
        post: (urlPath, body) => request(urlPath, { cookie: value, body: body ?? {}, method: "POST" }),
      };
    },
    write: (account, contract, functionName, args = []) =>
      serial(account, () => p.write(account, contract, functionName, args)),
    async signed(account, contract, functionName, args = []) {
      const wallet = p.walletFor(account);
      const request = await wallet.prepareTransactionRequest({
        account,
        to: p.address(contract),
        data: encodeFunctionData({ abi: p.abis[contract] as Abi, functionName, args }),
        gas: 800_000n,
        chain: wallet.chain,
      } as never);
      return wallet.signTransaction(request as never);
    },
    async sendRaw(raw) {
      const hash = await p.publicClient.sendRawTransaction({ serializedTransaction: raw });
      return p.publicClient.waitForTransactionReceipt({ hash });
    },
    async sendReverted(account, contract, functionName, args = []) {
      const hash = await serial(account, () =>
        p.walletFor(account).writeContract({
          address: p.address(contract),
          abi: p.abis[contract] as Abi,
          functionName,
          args,
          gas: 500_000n,
        } as never),
      );
      const receipt = await p.publicClient.waitForTransactionReceipt({ hash });
      if (receipt.status !== "reverted") throw new Error(`${functionName} did not revert`);
      return hash;
    },
    async fund(account, amount = CORE(100_000)) {
      const admin = roleAccount("deployer");
      await harness.write(admin, "CoreToken", "mint", [account.address, amount]);
      await harness.write(admin, "DemoToken", "mint", [account.address, amount]);
      for (const spender of ["SubnetManager", "PodManager", "VeCore"] as const) {
        await harness.write(account, "CoreToken", "approve", [p.address(spender), maxUint256]);
        await harness.write(account, "DemoToken", "approve", [p.address(spender), maxUint256]);
      }
    },
    async caughtUp() {
      if (!indexer) throw new Error("this harness runs without an indexer");
      // well within a test's 60 s, so that a stuck indexer fails with its block and last log lines
      await indexer.waitForBlock(await p.publicClient.getBlockNumber({ cacheTime: 0 }), 40_000);
    },
  };

  if (indexer) {
    await indexer.waitUntilReady(180_000);
    await harness.caughtUp();
  }

  const stop = async () => {
    await indexer?.stop().catch(() => undefined);
    await store.pool.end().catch(() => undefined);
    await devnet.chain.stop().catch(() => undefined);
    await database.drop().catch(() => undefined);
    fs.rmSync(tempDir, { recursive: true, force: true });
  };
  return { harness, stop };
}

/** A cookie signed like the identity provider's, but with a key it does not hold. */
export async function foreignCookie(claims: LocalTokenClaims): Promise<string> {
  const { privateKey } = await generateKeyPair("ES256", { extractable: true });
  const privateJwk = { ...(await exportJWK(privateKey)), kid: "local-idp-1", alg: "ES256" };
  return `${IDP_COOKIE}=${await signLocalIdpToken(claims, { privateJwk })}`;
}

/** Every kind of bad cookie for `sub`: missing, garbage, expired, foreign issuer/audience/key. */
export async function badCookies(h: PlatformHarness, claims: LocalTokenClaims): Promise<Array<string | undefined>> {
  return [
    undefined,
    `${IDP_COOKIE}=`,
    `${IDP_COOKIE}=garbage`,
    `${IDP_COOKIE}=abc.def.ghi`,
    await h.cookie(claims, { expiresIn: -10 }),
    await h.cookie(claims, { issuer: "someone-else" }),
    await h.cookie(claims, { audience: "another-app" }),
    await foreignCookie(claims),
  ];
}

/** The body of a JSON response (typed loosely for assertions). */
export async function json<T = any>(response: Response): Promise<T> {
  return (await response.json()) as T;
}

/** A valid datanet create-draft body (override fields as needed). */
export function subnetDraftBody(overrides: Record<string, unknown> = {}, primaryToken?: string) {
  return {
    subnetCreatorType: "team",
    subnetName: "Research papers",
    subnetDescription: "Peer-reviewed research papers and their datasets",
    onboardingPublishers: "Publish one paper per pod, with its DOI",
    onboardingVoters: "Vote on the rigour and clarity of the paper",
    subnetGoal: "A curated corpus of research",
    nativeTokenAddress: primaryToken ?? "0x0000000000000000000000000000000000000001",
    nativeTokenSymbol: "DATA",
    nativeTokenDecimals: 18,
    ...overrides,
  };
}

/** A valid pod create-draft body for datanet `subnetId`. */
export function podDraftBody(subnetId: string, overrides: Record<string, unknown> = {}) {
  return {
    subnetId,
    podName: "Attention is all you need",
    url: "https://example.com/papers/attention",
    platform: "arxiv",
    category: "machine learning",
    podDescription: "The transformer paper, with its reference implementation",
    agreeToTerms: true,
    ...overrides,
  };
}
