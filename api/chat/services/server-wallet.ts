import {
  BaseError,
  ContractFunctionRevertedError,
  NonceTooLowError,
  createWalletClient,
  http,
  WaitForTransactionReceiptTimeoutError,
  type Abi,
  type Address,
  type Hash,
  type Hex,
  type PublicClient,
  type TransactionReceipt,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { baseChain } from "../../../chain/chain";
import { createProcessSendLock, type SendLock } from "./send-lock";

/** The simulated call reverted: `errorName` is the contract's custom error (e.g. "AlreadyClaimed"). */
export class ContractRevertError extends Error {
  constructor(
    readonly errorName: string | undefined,
    readonly args: readonly unknown[] | undefined,
    message: string,
  ) {
    super(message);
    this.name = "ContractRevertError";
  }
}

/** The chain could not be asked or did not take the transaction. */
export class ChainRpcError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "ChainRpcError";
  }
}

/** The decoded revert inside a viem error, if the error is a revert. */
export function revertOf(error: unknown): ContractRevertError | undefined {
  if (error instanceof ContractRevertError) return error;
  if (!(error instanceof BaseError)) return undefined;
  const revert = error.walk((e) => e instanceof ContractFunctionRevertedError);
  if (!(revert instanceof ContractFunctionRevertedError)) return undefined;
  return new ContractRevertError(revert.data?.errorName ?? revert.reason, revert.data?.args, revert.shortMessage);
}

/** Another sender of the same key outside our send lock took the nonce first: read it again and retry. */
function isNonceConflict(error: unknown): boolean {
  if (error instanceof BaseError && error.walk((e) => e instanceof NonceTooLowError)) return true;
  const text = error instanceof BaseError ? `${error.shortMessage} ${error.details}` : String(error);
  return /nonce too low|nonce has already been used|replacement transaction underpriced|already known/i.test(text);
}

const NONCE_RETRIES = 5;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface ContractCall {
  address: Address;
  abi: Abi;
  functionName: string;
  args: readonly unknown[];
}

export interface ServerWallet {
  address: Address;
  /**
   * Simulates the call (a revert throws ContractRevertError), then signs and sends it under the
   * send lock with the chain's pending nonce, so parallel sends (also from other replicas sharing
   * the lock) never take the same nonce or leave a gap.
   */
  send(call: ContractCall): Promise<Hash>;
  /** The receipt, or null when it has not arrived within `timeoutMs`. */
  waitForReceipt(hash: Hash, timeoutMs: number): Promise<TransactionReceipt | null>;
  /**
   * Its transactions sent and not yet mined, by any replica or tool using the key: the node's
   * pending nonce minus its latest one. Throws when the RPC does not answer.
   */
  pendingTransactions(): Promise<number>;
}

export function createServerWallet(options: {
  privateKey: Hex;
  rpcUrl: string;
  local: boolean;
  publicClient: PublicClient;
  /** Default: in-process only; replicas sharing the key pass a PostgreSQL-backed lock. */
  sendLock?: SendLock;
}): ServerWallet {
  const account = privateKeyToAccount(options.privateKey);
  const sendLock = options.sendLock ?? createProcessSendLock();
  const chain = baseChain(options.rpcUrl, { local: options.local });
  const wallet = createWalletClient({
    account,
    chain,
    transport: http(options.rpcUrl, { timeout: 15_000, retryCount: 1 }),
  });
  const { publicClient } = options;

  return {
    address: account.address,

    async send(call) {
      let request: unknown;
      try {
        ({ request } = await publicClient.simulateContract({ ...call, account } as never));
      } catch (error) {
        const revert = revertOf(error);
        if (revert) throw revert;
        throw new ChainRpcError("Chain RPC unavailable", { cause: error });
      }
      for (let attempt = 0; ; attempt++) {
        try {
          return await sendLock.run(async () => {
            const nonce = await publicClient.getTransactionCount({ address: account.address, blockTag: "pending" });
            return wallet.writeContract({ ...(request as object), nonce } as never);
          });
        } catch (error) {
          const revert = revertOf(error);
          if (revert) throw revert;
          if (attempt < NONCE_RETRIES && isNonceConflict(error)) {
            await pause(10 + Math.random() * 40 * (attempt + 1));
            continue;
          }
          throw new ChainRpcError("The transaction could not be sent", { cause: error });
        }
      }
    },

    async pendingTransactions() {
      const [pending, mined] = await Promise.all([
        publicClient.getTransactionCount({ address: account.address, blockTag: "pending" }),
        publicClient.getTransactionCount({ address: account.address, blockTag: "latest" }),
      ]);
      return Math.max(0, pending - mined);
    },

    async waitForReceipt(hash, timeoutMs) {
      try {
        return await publicClient.waitForTransactionReceipt({ hash, timeout: timeoutMs });
      } catch (error) {
        if (error instanceof WaitForTransactionReceiptTimeoutError) return null;
        throw new ChainRpcError("Chain RPC unavailable", { cause: error });
      }
    },
  };
}
