import {
  createPublicClient,
  createTestClient,
  createWalletClient,
  http,
  type Account,
  type Abi,
  type Hash,
  type TransactionReceipt,
} from "viem";
import { baseChain } from "../chain/chain";

/** viem clients for a local anvil chain; anvil mines on every transaction, so poll fast. */
export function devnetClients(rpcUrl: string) {
  const chain = baseChain(rpcUrl, { local: true });
  const transport = http(rpcUrl, { batch: false, retryCount: 0 });
  const pollingInterval = 20;
  const publicClient = createPublicClient({ chain, transport, pollingInterval });
  const testClient = createTestClient({ chain, transport, mode: "anvil", pollingInterval });
  const walletFor = (account: Account) => createWalletClient({ chain, transport, account, pollingInterval });

  /** Sends a contract call and waits for its receipt; a reverted transaction throws. */
  async function send(
    account: Account,
    call: { address: `0x${string}`; abi: Abi; functionName: string; args?: readonly unknown[] },
  ): Promise<TransactionReceipt> {
    const wallet = walletFor(account);
    // simulate first so a revert surfaces with its decoded custom error
    const { request } = await publicClient.simulateContract({ ...call, account } as never);
    const hash: Hash = await wallet.writeContract(request as never);
    const receipt = await publicClient.waitForTransactionReceipt({ hash });
    if (receipt.status !== "success") throw new Error(`${call.functionName} reverted in ${hash}`);
    return receipt;
  }

  async function increaseTime(seconds: number): Promise<void> {
    await testClient.increaseTime({ seconds });
    await testClient.mine({ blocks: 1 });
  }

  return { chain, publicClient, testClient, walletFor, send, increaseTime };
}

export type DevnetClients = ReturnType<typeof devnetClients>;
