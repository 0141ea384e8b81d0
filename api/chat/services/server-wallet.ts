import {
  BaseError,
  ContractFunctionRevertedError,
  NonceTooLowError,
  createWalletClient,
  encodeFunctionData,
  http,
  keccak256,
  TransactionNotFoundError,
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

const errorText = (error: unknown) => (error instanceof BaseError ? `${error.shortMessage} ${error.details}` : String(error));

/** Another sender of the same key outside our send lock took the nonce first: read it again and retry. */
function isNonceConflict(error: unknown): boolean {
  if (error instanceof BaseError && error.walk((e) => e instanceof NonceTooLowError)) return true;
  return /nonce too low|nonce has already been used|replacement transaction underpriced|already known/i.test(errorText(error));
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

  /** Whether the node has the transaction `hash` (pending or mined); asked a few times, as the node may be flaky too. */
  async function isKnown(hash: Hash): Promise<boolean> {
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        await publicClient.getTransaction({ hash });
        return true;
      } catch (error) {
        if (error instanceof TransactionNotFoundError) return false;
        await pause(200 * (attempt + 1));
      }
    }
    // the node cannot say: sending again could spend the nonce twice, so the send counts as failed
    // and its transaction, if it did arrive, is found by the pending-transactions check
    return false;
  }

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
      const data = encodeFunctionData({ abi: call.abi, functionName: call.functionName, args: call.args } as never);
      const gas = (request as { gas?: bigint }).gas;
      for (let attempt = 0; ; attempt++) {
        let sent: Hash | undefined;
        try {
          return await sendLock.run(async () => {
            const nonce = await publicClient.getTransactionCount({ address: account.address, blockTag: "pending" });
            // Signed here, so its hash is known before it leaves: an answer lost on the way back
            // (a timeout, a dropped connection, a retry told "already known") is settled by asking
            // the node for that hash, never by signing a second transaction with the next nonce.
            const prepared = await wallet.prepareTransactionRequest({ to: call.address, data, nonce, ...(gas ? { gas } : {}) } as never);
            const serialized = await wallet.signTransaction(prepared as never);
            sent = keccak256(serialized);
            return await wallet.sendRawTransaction({ serializedTransaction: serialized });
          });
        } catch (error) {
          // "already known": the node holds this very transaction (an earlier attempt of the same bytes arrived)
          if (sent && (/already known/i.test(errorText(error)) || (await isKnown(sent)))) return sent;
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
