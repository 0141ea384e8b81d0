/**
 * Parsing of the indexer's environment for ponder.config.ts (pure: no I/O besides reading
 * the deployments file, no Ponder imports).
 *
 *   PONDER_RPC_URL_8453   RPC URL(s) of Base, comma-separated. A single loopback URL (a local
 *                         anvil) is expanded into PONDER_RPC_LANES (default 6) "lanes" with
 *                         distinct query strings: Ponder rate-limits each URL separately.
 *                         Falls back to the deployments file's rpcUrl.
 *   PONDER_RPC_LANES      lanes for a single loopback URL (1 = no expansion).
 *   PONDER_POLLING_INTERVAL_MS  how often the live sync asks for the head (default: Ponder's
 *                         1,000 on a remote chain, 200 on a local one); a provider that bills
 *                         each call makes 86,400 head polls a day at 1,000.
 *   PONDER_RPC_CACHE      "1" keeps Ponder's RPC cache (schema ponder_sync) on for a loopback
 *                         URL too. Off by default for a local chain: a restarted anvil reuses
 *                         block numbers, and the cache is keyed by (chain id, block number).
 *                         The bench turns it on to measure a reindex from the cache (the Base case).
 *   DATABASE_URL          PostgreSQL connection string (required).
 *   CORE_TOKEN_ADDRESS, VE_CORE_ADDRESS, SUBNET_MANAGER_ADDRESS, POD_MANAGER_ADDRESS
 *   START_BLOCK           contract addresses and one start block for all of them; each falls
 *                         back to the deployments file (DEPLOYMENTS_FILE, default
 *                         .data/devnet/deployments.json). An address from the environment
 *                         without START_BLOCK is indexed from block 0.
 */
import { deploymentsFile, readDeployment, type Deployment } from "../chain/deployments";
import { ADDRESS_ENV, isLoopbackUrl, resolveContracts as resolveProtocolContracts, type ContractLocation } from "../chain/protocol-config";
import { processEnv } from "../api/env";

export { isLoopbackUrl };

export const BASE_CHAIN_ID = 8453;
export const RPC_URL_ENV = `PONDER_RPC_URL_${BASE_CHAIN_ID}`;
export const DEFAULT_LOCAL_RPC_LANES = 6;
/** Polling interval for a local chain (anvil mines a block per transaction). */
export const LOCAL_POLLING_INTERVAL_MS = 200;

export const INDEXED_CONTRACTS = ["CoreToken", "VeCore", "SubnetManager", "PodManager"] as const;
export type IndexedContract = (typeof INDEXED_CONTRACTS)[number];

export { ADDRESS_ENV };

export type Address = `0x${string}`;
export type { ContractLocation };

export type PonderEnv = {
  rpcUrls: string[];
  /** Every RPC URL is on this machine: a devnet. */
  localRpc: boolean;
  /** Use Ponder's RPC cache: a remote chain, or PONDER_RPC_CACHE=1. */
  rpcCache: boolean;
  pollingIntervalMs: number | undefined;
  databaseUrl: string;
  contracts: Record<IndexedContract, ContractLocation>;
};

/**
 * The RPC URLs to give Ponder: the comma-separated list as given, except that a single
 * loopback http(s) URL becomes `lanes` URLs with `lane=1..lanes` in the query string.
 */
export function parseRpcUrls(value: string | undefined, lanes = DEFAULT_LOCAL_RPC_LANES): string[] {
  const urls = (value ?? "")
    .split(",")
    .map((url) => url.trim())
    .filter((url) => url.length > 0);
  for (const url of urls) {
    try {
      new URL(url);
    } catch {
      throw new Error(`${RPC_URL_ENV}: not a URL: ${url}`);
    }
  }
  const [only] = urls;
  if (urls.length !== 1 || only === undefined || lanes <= 1 || !isLoopbackUrl(only)) return urls;
  const base = new URL(only);
  if (base.protocol !== "http:" && base.protocol !== "https:") return urls;
  return Array.from({ length: lanes }, (_, i) => {
    const lane = new URL(base.toString());
    lane.searchParams.set("lane", String(i + 1));
    return lane.toString();
  });
}

function parsePollingInterval(value: string | undefined): number | undefined {
  if (value === undefined || value.trim() === "") return undefined;
  const ms = Number(value);
  if (!Number.isInteger(ms) || ms < 50 || ms > 60_000) throw new Error(`PONDER_POLLING_INTERVAL_MS must be an integer from 50 to 60000, got ${value}`);
  return ms;
}

function parseLanes(value: string | undefined): number {
  if (value === undefined || value.trim() === "") return DEFAULT_LOCAL_RPC_LANES;
  const lanes = Number(value);
  if (!Number.isInteger(lanes) || lanes < 1 || lanes > 64) {
    throw new Error(`PONDER_RPC_LANES must be an integer from 1 to 64, got ${value}`);
  }
  return lanes;
}

/** Addresses and start blocks of the indexed contracts: env first, then the deployments file (rules in chain/). */
export function resolveContracts(
  env: NodeJS.ProcessEnv,
  deployment: Deployment | undefined,
  source = "the deployments file",
): Record<IndexedContract, ContractLocation> {
  return resolveProtocolContracts(INDEXED_CONTRACTS, env, deployment, { source });
}

/** Everything ponder.config.ts needs, from `env` (and the deployments file when needed). */
export function loadPonderEnv(env: NodeJS.ProcessEnv = processEnv()): PonderEnv {
  const file = deploymentsFile(env);
  const needsFile =
    INDEXED_CONTRACTS.some((name) => !env[ADDRESS_ENV[name]]?.trim()) ||
    !env.START_BLOCK?.trim() ||
    !env[RPC_URL_ENV]?.trim();
  const deployment = needsFile ? readDeployment(file) : undefined;

  const databaseUrl = env.DATABASE_URL?.trim();
  if (!databaseUrl) throw new Error("DATABASE_URL is not set (the indexer uses PostgreSQL)");

  const rpcUrls = parseRpcUrls(env[RPC_URL_ENV]?.trim() || deployment?.rpcUrl, parseLanes(env.PONDER_RPC_LANES));
  if (rpcUrls.length === 0) throw new Error(`${RPC_URL_ENV} is not set`);
  const localRpc = rpcUrls.every(isLoopbackUrl);

  const cacheFlag = env.PONDER_RPC_CACHE?.trim().toLowerCase();
  return {
    rpcUrls,
    localRpc,
    rpcCache: !localRpc || cacheFlag === "1" || cacheFlag === "true",
    pollingIntervalMs: parsePollingInterval(env.PONDER_POLLING_INTERVAL_MS) ?? (localRpc ? LOCAL_POLLING_INTERVAL_MS : undefined),
    databaseUrl,
    contracts: resolveContracts(env, deployment, file),
  };
}
