import {
  createPublicClient,
  createWalletClient,
  getAddress,
  http,
  parseEther,
  type Abi,
  type Address,
  type Hex,
  type LocalAccount,
} from "viem";
import { CoreTokenAbi, DemoTokenAbi, PodManagerAbi, SubnetManagerAbi, VeCoreAbi } from "../abis";
import { bytecode } from "./bytecode.generated";
import { BASE_CHAIN_ID, baseChain } from "./chain";
import type { ContractName, Deployment } from "./deployments";
import { isLoopbackUrl } from "./protocol-config";

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

export type DeployTarget = {
  rpcUrl: string;
  /** Sends every transaction; becomes the protocol's admin and moderator. */
  deployer: LocalAccount;
  /** Receives the performance-pool part of every fee. */
  performancePool: Address;
  /** Accounts whose locks count as governance-locked. */
  governanceAccounts: Address[];
  options?: DeployOptions;
  /** Progress lines (one per transaction). */
  onStep?: (line: string) => void;
};

/**
 * Deploys the protocol (CoreToken, DemoToken, VeCore, SubnetManager, PodManager), grants the
 * PodManager its role and registers the governance accounts; returns the deployments file's
 * content. Every transaction waits for its receipt before the next, so the deployer's nonces
 * never race. Used by `npm run deploy:protocol` (any chain) and the local devnet.
 */
export async function deployProtocolContracts(target: DeployTarget): Promise<Deployment> {
  const given = Object.fromEntries(Object.entries(target.options ?? {}).filter(([, value]) => value !== undefined));
  const opts: Required<DeployOptions> = { ...DEFAULT_DEPLOY_OPTIONS, ...given };
  const local = isLoopbackUrl(target.rpcUrl);
  const chain = baseChain(target.rpcUrl, { local });
  const transport = http(target.rpcUrl, { batch: false, retryCount: local ? 0 : 3 });
  const pollingInterval = local ? 20 : 1_000;
  const publicClient = createPublicClient({ chain, transport, pollingInterval });
  const wallet = createWalletClient({ chain, transport, account: target.deployer, pollingInterval });
  const chainId = await publicClient.getChainId();
  if (chainId !== BASE_CHAIN_ID && !local) {
    throw new Error(`${target.rpcUrl} is chain ${chainId}; the indexer and the API follow chain ${BASE_CHAIN_ID}`);
  }
  const admin = target.deployer.address;
  const step = target.onStep ?? (() => undefined);

  async function deploy(name: ContractName, abi: Abi, args: readonly unknown[]) {
    const hash = await wallet.deployContract({ abi, bytecode: bytecode[name] as Hex, args } as never);
    const receipt = await publicClient.waitForTransactionReceipt({ hash });
    if (receipt.status !== "success" || !receipt.contractAddress) throw new Error(`deploying ${name} failed in ${hash}`);
    const deployed = { address: getAddress(receipt.contractAddress), startBlock: Number(receipt.blockNumber) };
    step(`${name} at ${deployed.address} (block ${deployed.startBlock})`);
    return deployed;
  }

  async function send(call: { address: Address; abi: Abi; functionName: string; args: readonly unknown[] }) {
    // simulated first so a revert surfaces with its decoded custom error
    const { request } = await publicClient.simulateContract({ ...call, account: target.deployer } as never);
    const hash = await wallet.writeContract(request as never);
    const receipt = await publicClient.waitForTransactionReceipt({ hash });
    if (receipt.status !== "success") throw new Error(`${call.functionName} reverted in ${hash}`);
    step(`${call.functionName} in ${hash}`);
  }

  const core = await deploy("CoreToken", CoreTokenAbi, [admin]);
  const demo = await deploy("DemoToken", DemoTokenAbi, ["Data", "DATA", 18, admin]);
  const veCore = await deploy("VeCore", VeCoreAbi, [
    core.address,
    BigInt(opts.epochLengthSeconds),
    BigInt(opts.minStakeDuration),
    BigInt(opts.maxStakeDuration),
    admin,
  ]);
  const subnetManager = await deploy("SubnetManager", SubnetManagerAbi, [
    core.address,
    veCore.address,
    target.performancePool,
    opts.subnetCreationFee,
    admin,
  ]);
  const podManager = await deploy("PodManager", PodManagerAbi, [
    core.address,
    veCore.address,
    subnetManager.address,
    BigInt(opts.podValidityPeriod),
    admin,
  ]);

  const podManagerRole = await publicClient.readContract({
    address: subnetManager.address,
    abi: SubnetManagerAbi,
    functionName: "POD_MANAGER_ROLE",
  });
  await send({ address: subnetManager.address, abi: SubnetManagerAbi, functionName: "grantRole", args: [podManagerRole, podManager.address] });
  for (const account of target.governanceAccounts) {
    await send({ address: veCore.address, abi: VeCoreAbi, functionName: "setGovernanceAccount", args: [account, true] });
  }

  return {
    chainId: BASE_CHAIN_ID,
    rpcUrl: target.rpcUrl,
    deployedAt: new Date().toISOString(),
    contracts: { CoreToken: core, DemoToken: demo, VeCore: veCore, SubnetManager: subnetManager, PodManager: podManager },
    parameters: {
      epochLengthSeconds: opts.epochLengthSeconds,
      minStakeDuration: opts.minStakeDuration,
      maxStakeDuration: opts.maxStakeDuration,
      subnetCreationFee: opts.subnetCreationFee.toString(),
      podValidityPeriod: opts.podValidityPeriod,
      performancePool: target.performancePool,
      governanceAccounts: target.governanceAccounts,
    },
  };
}
