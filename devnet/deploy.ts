import { getAddress, parseEther, type Abi, type Hex } from "viem";
import {
  CoreTokenAbi,
  DemoTokenAbi,
  PodManagerAbi,
  SubnetManagerAbi,
  VeCoreAbi,
} from "../abis";
import { BASE_CHAIN_ID } from "../chain/chain";
import type { ContractName, Deployment } from "../chain/deployments";
import { bytecode } from "./bytecode.generated";
import { devnetClients, type DevnetClients } from "./clients";
import { roleAccount } from "./accounts";

export const DAY = 86_400;

export type DeployOptions = {
  /** Seconds per epoch; 172800 (48 h) like the live protocol. Tests may shorten it. */
  epochLengthSeconds?: number;
  minStakeDuration?: number;
  maxStakeDuration?: number;
  subnetCreationFee?: bigint;
  /** Epochs a mint or republish keeps a pod valid, counting the current one. */
  podValidityPeriod?: number;
};

export const DEFAULT_DEPLOY_OPTIONS: Required<DeployOptions> = {
  epochLengthSeconds: 2 * DAY,
  minStakeDuration: 7 * DAY,
  maxStakeDuration: 730 * DAY,
  subnetCreationFee: parseEther("100"),
  podValidityPeriod: 4,
};

/** Deploys the protocol with the deployer as admin and moderator; returns addresses and start blocks. */
export async function deployProtocol(rpcUrl: string, options: DeployOptions = {}): Promise<Deployment> {
  const given = Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined));
  const opts: Required<DeployOptions> = { ...DEFAULT_DEPLOY_OPTIONS, ...given };
  const clients = devnetClients(rpcUrl);
  const admin = roleAccount("deployer");
  const performancePool = roleAccount("performancePool").address;
  const treasury = roleAccount("treasury").address;

  const core = await deploy(clients, "CoreToken", CoreTokenAbi, [admin.address]);
  const demo = await deploy(clients, "DemoToken", DemoTokenAbi, ["Data", "DATA", 18, admin.address]);
  const veCore = await deploy(clients, "VeCore", VeCoreAbi, [
    core.address,
    BigInt(opts.epochLengthSeconds),
    BigInt(opts.minStakeDuration),
    BigInt(opts.maxStakeDuration),
    admin.address,
  ]);
  const subnetManager = await deploy(clients, "SubnetManager", SubnetManagerAbi, [
    core.address,
    veCore.address,
    performancePool,
    opts.subnetCreationFee,
    admin.address,
  ]);
  const podManager = await deploy(clients, "PodManager", PodManagerAbi, [
    core.address,
    veCore.address,
    subnetManager.address,
    BigInt(opts.podValidityPeriod),
    admin.address,
  ]);

  const podManagerRole = await clients.publicClient.readContract({
    address: subnetManager.address,
    abi: SubnetManagerAbi,
    functionName: "POD_MANAGER_ROLE",
  });
  await clients.send(admin, {
    address: subnetManager.address,
    abi: SubnetManagerAbi,
    functionName: "grantRole",
    args: [podManagerRole, podManager.address],
  });
  await clients.send(admin, {
    address: veCore.address,
    abi: VeCoreAbi,
    functionName: "setGovernanceAccount",
    args: [treasury, true],
  });

  return {
    chainId: BASE_CHAIN_ID,
    rpcUrl,
    deployedAt: new Date().toISOString(),
    contracts: { CoreToken: core, DemoToken: demo, VeCore: veCore, SubnetManager: subnetManager, PodManager: podManager },
    parameters: {
      epochLengthSeconds: opts.epochLengthSeconds,
      minStakeDuration: opts.minStakeDuration,
      maxStakeDuration: opts.maxStakeDuration,
      subnetCreationFee: opts.subnetCreationFee.toString(),
      podValidityPeriod: opts.podValidityPeriod,
      performancePool,
      governanceAccounts: [treasury],
    },
  };
}

async function deploy(
  clients: DevnetClients,
  name: ContractName,
  abi: Abi,
  args: readonly unknown[],
): Promise<{ address: `0x${string}`; startBlock: number }> {
  const wallet = clients.walletFor(roleAccount("deployer"));
  const hash = await wallet.deployContract({ abi, bytecode: bytecode[name] as Hex, args } as never);
  const receipt = await clients.publicClient.waitForTransactionReceipt({ hash });
  if (receipt.status !== "success" || !receipt.contractAddress) throw new Error(`deploying ${name} failed`);
  return { address: getAddress(receipt.contractAddress), startBlock: Number(receipt.blockNumber) };
}
