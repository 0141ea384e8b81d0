import type { Abi, Account, TransactionReceipt } from "viem";
import { CoreTokenAbi, DemoTokenAbi, PodManagerAbi, SubnetManagerAbi, VeCoreAbi } from "../abis";
import type { ContractName, Deployment } from "../chain/deployments";
import { devnetClients } from "./clients";

const ABIS = {
  CoreToken: CoreTokenAbi,
  DemoToken: DemoTokenAbi,
  VeCore: VeCoreAbi,
  SubnetManager: SubnetManagerAbi,
  PodManager: PodManagerAbi,
} as const satisfies Record<ContractName, Abi>;

/** The deployed protocol bound to a local chain: reads, writes and time travel for seeding and tests. */
export function connectProtocol(rpcUrl: string, deployment: Deployment) {
  const clients = devnetClients(rpcUrl);
  const address = (name: ContractName) => deployment.contracts[name].address;

  function read<T = unknown>(name: ContractName, functionName: string, args: readonly unknown[] = []): Promise<T> {
    return clients.publicClient.readContract({
      address: address(name),
      abi: ABIS[name] as Abi,
      functionName,
      args,
    }) as Promise<T>;
  }

  function write(
    account: Account,
    name: ContractName,
    functionName: string,
    args: readonly unknown[] = [],
  ): Promise<TransactionReceipt> {
    return clients.send(account, { address: address(name), abi: ABIS[name] as Abi, functionName, args });
  }

  async function currentEpoch(): Promise<number> {
    return Number(await read<bigint>("VeCore", "currentEpoch"));
  }

  /** Moves chain time to the first second of the next epoch and mines a block there. */
  async function advanceToNextEpoch(): Promise<number> {
    const epoch = await read<bigint>("VeCore", "currentEpoch");
    const end = await read<bigint>("VeCore", "epochEnd", [epoch]);
    await clients.testClient.setNextBlockTimestamp({ timestamp: end });
    await clients.testClient.mine({ blocks: 1 });
    return currentEpoch();
  }

  return { ...clients, deployment, address, abis: ABIS, read, write, currentEpoch, advanceToNextEpoch };
}

export type Protocol = ReturnType<typeof connectProtocol>;
