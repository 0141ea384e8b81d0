import { getAddress, type Address } from "viem";
import { deploymentsFile, readDeployment, type ContractName, type Deployment } from "./deployments";
import { parseEnv, processEnv } from "../api/env";

export type ProtocolConfig = {
  rpcUrl: string;
  /** True for a chain on this machine (the devnet): no OP-stack formatters, fast polling. */
  local: boolean;
  contracts: Record<ContractName, ContractLocation>;
  /** CHAIN_RECEIPT_WAIT_MS: see createChainClient; default by `local`. */
  receiptWaitMs?: number;
};

/** The environment variable of each contract's address. */
export const ADDRESS_ENV: Record<ContractName, string> = {
  CoreToken: "CORE_TOKEN_ADDRESS",
  DemoToken: "PRIMARY_TOKEN_ADDRESS",
  VeCore: "VE_CORE_ADDRESS",
  SubnetManager: "SUBNET_MANAGER_ADDRESS",
  PodManager: "POD_MANAGER_ADDRESS",
};

export type ContractLocation = { address: Address; startBlock: number };

const ZERO_ADDRESS: Address = "0x0000000000000000000000000000000000000000";

function parseAddress(name: string, value: string): Address {
  if (!/^0x[0-9a-fA-F]{40}$/.test(value)) throw new Error(`${name} is not an address: ${value}`);
  return value as Address;
}

function parseBlock(name: string, value: string): number {
  const block = Number(value);
  if (!Number.isSafeInteger(block) || block < 0) throw new Error(`${name} is not a block number: ${value}`);
  return block;
}

/**
 * The one resolution of contract addresses and start blocks, for the API and the indexer:
 * the environment first (CORE_TOKEN_ADDRESS, ..., one START_BLOCK for all), else the deployments
 * file (a file's start block only goes with the file's address). An address from the environment
 * without START_BLOCK starts at block 0. A missing `optional` contract is the zero address.
 */
export function resolveContracts<N extends ContractName>(
  names: readonly N[],
  env: NodeJS.ProcessEnv,
  deployment: Deployment | undefined,
  { source = "the deployments file", optional = [] }: { source?: string; optional?: readonly N[] } = {},
): Record<N, ContractLocation> {
  const startBlockEnv = env.START_BLOCK?.trim();
  const startBlock = startBlockEnv ? parseBlock("START_BLOCK", startBlockEnv) : undefined;
  const entries = names.map((name) => {
    const envName = ADDRESS_ENV[name];
    const fromEnv = env[envName]?.trim();
    const fromFile = deployment?.contracts[name];
    const address = fromEnv ? parseAddress(envName, fromEnv) : fromFile?.address;
    if (address === undefined) {
      if (optional.includes(name)) return [name, { address: ZERO_ADDRESS, startBlock: 0 }] as const;
      throw new Error(`No address for ${name}: set ${envName} or provide ${source}`);
    }
    const fileStartBlock = fromEnv ? undefined : fromFile?.startBlock;
    return [name, { address, startBlock: startBlock ?? fileStartBlock ?? 0 }] as const;
  });
  return Object.fromEntries(entries) as Record<N, ContractLocation>;
}

/** First URL of PONDER_RPC_URL_8453 (which may list several, comma-separated). */
export function primaryRpcUrl(env: NodeJS.ProcessEnv = processEnv()): string | undefined {
  return env.PONDER_RPC_URL_8453?.split(",").map((u) => u.trim()).find(Boolean);
}

const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "::1", "[::1]", "0.0.0.0"]);

/** An RPC on this machine (a devnet): Ponder's cache is disabled and clients poll fast. */
export function isLoopbackUrl(value: string): boolean {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  const host = url.hostname.toLowerCase();
  return LOOPBACK_HOSTS.has(host) || host.startsWith("127.") || host.endsWith(".localhost");
}

/**
 * The protocol's RPC and contract addresses: environment variables first
 * (PONDER_RPC_URL_8453, CORE_TOKEN_ADDRESS, ..., START_BLOCK), else the devnet's deployments file.
 */
export function loadProtocolConfig(env: NodeJS.ProcessEnv = processEnv()): ProtocolConfig {
  const file = deploymentsFile(env);
  const deployment = readDeployment(file);
  const rpcUrl = primaryRpcUrl(env) ?? deployment?.rpcUrl;
  if (!rpcUrl) throw new Error("No chain RPC: set PONDER_RPC_URL_8453 or run the devnet (npm run devnet)");
  const resolved = resolveContracts(Object.keys(ADDRESS_ENV) as ContractName[], env, deployment, {
    source: `${file} (npm run devnet)`,
    optional: ["DemoToken"],
  });
  const contracts = Object.fromEntries(
    Object.entries(resolved).map(([name, { address, startBlock }]) => [name, { address: getAddress(address), startBlock }]),
  ) as ProtocolConfig["contracts"];
  const receiptWaitMs = parseEnv(env).CHAIN_RECEIPT_WAIT_MS;
  return { rpcUrl, local: isLoopbackUrl(rpcUrl), contracts, ...(receiptWaitMs === undefined ? {} : { receiptWaitMs }) };
}
