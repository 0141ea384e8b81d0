import { getAddress, type Address } from "viem";
import { deploymentsFile, readDeployment, type ContractName } from "./deployments";

export type ProtocolConfig = {
  rpcUrl: string;
  /** True for a chain on this machine (the devnet): no OP-stack formatters, fast polling. */
  local: boolean;
  contracts: Record<ContractName, { address: Address; startBlock: number }>;
};

const ENV_ADDRESS: Record<ContractName, string> = {
  CoreToken: "CORE_TOKEN_ADDRESS",
  DemoToken: "PRIMARY_TOKEN_ADDRESS",
  VeCore: "VE_CORE_ADDRESS",
  SubnetManager: "SUBNET_MANAGER_ADDRESS",
  PodManager: "POD_MANAGER_ADDRESS",
};

/** First URL of PONDER_RPC_URL_8453 (which may list several, comma-separated). */
export function primaryRpcUrl(env: NodeJS.ProcessEnv = process.env): string | undefined {
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
export function loadProtocolConfig(env: NodeJS.ProcessEnv = process.env): ProtocolConfig {
  const deployment = readDeployment(deploymentsFile(env));
  const rpcUrl = primaryRpcUrl(env) ?? deployment?.rpcUrl;
  if (!rpcUrl) throw new Error("No chain RPC: set PONDER_RPC_URL_8453 or run the devnet (npm run devnet)");
  const startBlock = env.START_BLOCK ? Number(env.START_BLOCK) : undefined;
  const contracts = {} as ProtocolConfig["contracts"];
  for (const [name, variable] of Object.entries(ENV_ADDRESS) as [ContractName, string][]) {
    const fromEnv = env[variable];
    const fromFile = deployment?.contracts[name];
    if (fromEnv) contracts[name] = { address: getAddress(fromEnv), startBlock: startBlock ?? 0 };
    else if (fromFile) contracts[name] = { address: getAddress(fromFile.address), startBlock: fromFile.startBlock };
    else if (name !== "DemoToken") throw new Error(`No address for ${name}: set ${variable} or run the devnet`);
    else contracts[name] = { address: "0x0000000000000000000000000000000000000000", startBlock: 0 };
  }
  return { rpcUrl, local: isLoopbackUrl(rpcUrl), contracts };
}
