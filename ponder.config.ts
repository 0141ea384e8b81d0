import { createConfig } from "ponder";
import { CoreTokenAbi, PodManagerAbi, SubnetManagerAbi, VeCoreAbi } from "./abis";
import { BASE_CHAIN_ID, loadPonderEnv } from "./ops/ponder-env";

// Environment: see ops/ponder-env.ts (PONDER_RPC_URL_8453, DATABASE_URL, contract addresses,
// START_BLOCK, DEPLOYMENTS_FILE).
const env = loadPonderEnv();
const { CoreToken, VeCore, SubnetManager, PodManager } = env.contracts;

export default createConfig({
  database: { kind: "postgres", connectionString: env.databaseUrl },
  ordering: "multichain",
  chains: {
    base: {
      id: BASE_CHAIN_ID,
      rpc: env.rpcUrls,
      // A local chain reuses Base's chain id: its data is not cached across runs unless asked
      // (PONDER_RPC_CACHE=1, see ops/ponder-env.ts).
      disableCache: !env.rpcCache,
      ...(env.pollingIntervalMs !== undefined ? { pollingInterval: env.pollingIntervalMs } : {}),
    },
  },
  contracts: {
    // Only the CORE transfers into the SubnetManager: the fees and package payments paid to it.
    CoreToken: {
      chain: "base",
      abi: CoreTokenAbi,
      address: CoreToken.address,
      startBlock: CoreToken.startBlock,
      filter: { event: "Transfer", args: { to: SubnetManager.address } },
    },
    VeCore: {
      chain: "base",
      abi: VeCoreAbi,
      address: VeCore.address,
      startBlock: VeCore.startBlock,
    },
    SubnetManager: {
      chain: "base",
      abi: SubnetManagerAbi,
      address: SubnetManager.address,
      startBlock: SubnetManager.startBlock,
    },
    PodManager: {
      chain: "base",
      abi: PodManagerAbi,
      address: PodManager.address,
      startBlock: PodManager.startBlock,
    },
  },
});
