import type { Abi, Address, PublicClient } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { CoreTokenAbi, PodManagerAbi, SubnetManagerAbi, VeCoreAbi } from "../../../abis";
import type { ApiChain } from "../../deps";
import { serviceUnavailable } from "../../http/errors";
import type { SendLock } from "./send-lock";
import { createServerWallet, revertOf, type ServerWallet } from "./server-wallet";

/** PodManager's ABI plus the CORE token's errors, so a failed fee transfer inside a mint decodes. */
export const PodManagerWithTokenErrorsAbi = [
  ...PodManagerAbi,
  ...CoreTokenAbi.filter((item) => item.type === "error"),
] as unknown as Abi;

/** The chain as the chat server sees it: protocol reads and, when configured, the server wallet. */
export interface ChatChain {
  publicClient: PublicClient;
  local: boolean;
  addresses: { podManager: Address; veCore: Address; subnetManager: Address; coreToken: Address };
  /** Undefined when no server key is configured (mint and claim answer 503). */
  wallet: ServerWallet | undefined;
  currentEpoch(): Promise<bigint>;
  epochLength(): Promise<bigint>;
  epochEnd(epoch: bigint): Promise<bigint>;
  /** The pod's current owner, or null when the token does not exist. */
  podOwner(podId: bigint): Promise<Address | null>;
  /** PodManager.podOwnerClaimable: what the owner's claim for `epoch` pays now (0 once claimed or while open). */
  podOwnerClaimable(podId: bigint, epoch: bigint): Promise<{ core: bigint; primary: bigint }>;
  hasPodOwnerClaimed(podId: bigint, epoch: bigint): Promise<boolean>;
  /** The pod's whole share (owner and voters) for `epoch`. */
  podEmissions(podId: bigint, epoch: bigint): Promise<{ core: bigint; primary: bigint }>;
  validSubnet(subnetId: bigint): Promise<boolean>;
}

/** RPC failures of reads become 503 `{"error":"Chain RPC unavailable"}`. */
async function read<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (revertOf(error)) throw error;
    throw serviceUnavailable("Chain RPC unavailable");
  }
}

/** The chat server's reads and server wallet on `chain` (its addresses and read client). */
export function createChatChain(
  { protocol, client: publicClient }: ApiChain,
  serverPrivateKey: `0x${string}` | undefined,
  sendLockFor?: (walletAddress: Address) => SendLock,
): ChatChain {
  const addresses = {
    podManager: protocol.contracts.PodManager.address,
    veCore: protocol.contracts.VeCore.address,
    subnetManager: protocol.contracts.SubnetManager.address,
    coreToken: protocol.contracts.CoreToken.address,
  };
  const wallet = serverPrivateKey
    ? createServerWallet({
        privateKey: serverPrivateKey,
        rpcUrl: protocol.rpcUrl,
        local: protocol.local,
        publicClient,
        sendLock: sendLockFor?.(privateKeyToAccount(serverPrivateKey).address),
      })
    : undefined;

  const pod = <T>(functionName: string, args: readonly unknown[]) =>
    read(() => publicClient.readContract({ address: addresses.podManager, abi: PodManagerAbi, functionName, args } as never) as Promise<T>);
  const ve = <T>(functionName: string, args: readonly unknown[] = []) =>
    read(() => publicClient.readContract({ address: addresses.veCore, abi: VeCoreAbi, functionName, args } as never) as Promise<T>);

  return {
    publicClient,
    local: protocol.local,
    addresses,
    wallet,
    currentEpoch: () => ve<bigint>("currentEpoch"),
    epochLength: () => ve<bigint>("epochLength"),
    epochEnd: (epoch) => ve<bigint>("epochEnd", [epoch]),
    async podOwner(podId) {
      try {
        return await pod<Address>("ownerOf", [podId]);
      } catch (error) {
        const revert = revertOf(error);
        if (revert?.errorName === "ERC721NonexistentToken") return null;
        throw error;
      }
    },
    async podOwnerClaimable(podId, epoch) {
      const [core, primary] = await pod<readonly [bigint, bigint]>("podOwnerClaimable", [podId, epoch]);
      return { core, primary };
    },
    hasPodOwnerClaimed: (podId, epoch) => pod<boolean>("hasPodOwnerClaimedEmissions", [epoch, podId]),
    async podEmissions(podId, epoch) {
      const [core, primary] = await pod<readonly [bigint, bigint]>("podEmissions", [podId, epoch]);
      return { core, primary };
    },
    validSubnet: (subnetId) =>
      read(
        () =>
          publicClient.readContract({
            address: addresses.subnetManager,
            abi: SubnetManagerAbi,
            functionName: "validSubnet",
            args: [subnetId],
          }) as Promise<boolean>,
      ),
  };
}
