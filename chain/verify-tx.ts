import {
  isAddressEqual,
  parseEventLogs,
  TransactionNotFoundError,
  TransactionReceiptNotFoundError,
  type Abi,
  type Address,
  type ContractEventName,
  type Hash,
  type Log,
  type ParseEventLogsReturnType,
  type PublicClient,
  type TransactionReceipt,
} from "viem";
import { receiptWaitMs } from "./client";

/** A transaction that does not prove what the caller claims: the surfaces answer 400. */
export class TxVerificationError extends Error {
  readonly status = 400;
}

/**
 * The chain could not be asked (RPC down, rate-limited, timing out, or a node behind the head):
 * the surfaces answer 503 with `Retry-After`, and nothing is recorded.
 */
export class ChainUnavailableError extends Error {
  readonly status = 503;
  constructor(
    message: string,
    readonly retryAfterSeconds = 5,
  ) {
    super(message);
  }
}

export type TxExpectation<TAbi extends Abi, TEventName extends ContractEventName<TAbi>> = {
  hash: Hash;
  /** The wallet that must have sent the transaction. */
  from: Address;
  /** The protocol contract the transaction must call and the event must come from. */
  contract: { address: Address; name: string };
  abi: TAbi;
  eventName: TEventName;
  /** Picks the log that proves the claim: returns true for a match. */
  matches?: (args: ParseEventLogsReturnType<TAbi, TEventName, true>[number]["args"]) => boolean;
  /** What the caller claimed, for the error message when no log matches. */
  describe?: string;
  minConfirmations?: number;
  /** The transaction's receipt when the caller already fetched it (to learn its sender): the RPC is not asked again. */
  receipt?: TransactionReceipt;
};

export type VerifiedTx<TAbi extends Abi, TEventName extends ContractEventName<TAbi>> = {
  receipt: TransactionReceipt;
  event: ParseEventLogsReturnType<TAbi, TEventName, true>[number];
  logs: Log[];
};

/**
 * The one check behind every route that records a `txHash`: the receipt exists and succeeded,
 * it was sent by `from` to the protocol contract, it carries the expected event from that
 * contract with the claimed values, and it has enough confirmations.
 */
export async function verifyTransaction<TAbi extends Abi, TEventName extends ContractEventName<TAbi>>(
  client: PublicClient,
  expect: TxExpectation<TAbi, TEventName>,
): Promise<VerifiedTx<TAbi, TEventName>> {
  const known = expect.receipt;
  const receipt =
    known && known.transactionHash.toLowerCase() === expect.hash.toLowerCase()
      ? known
      : await fetchReceipt(client, expect.hash);
  if (receipt.status !== "success") throw new TxVerificationError("Transaction reverted");
  if (!isAddressEqual(receipt.from, expect.from)) {
    throw new TxVerificationError("Transaction was not sent by the caller's wallet");
  }
  if (!receipt.to || !isAddressEqual(receipt.to, expect.contract.address)) {
    throw new TxVerificationError(`Transaction is not a call to ${expect.contract.name}`);
  }
  const events = parseEventLogs({
    abi: expect.abi,
    logs: receipt.logs.filter((log) => isAddressEqual(log.address, expect.contract.address)),
    eventName: expect.eventName,
    strict: true,
  }) as ParseEventLogsReturnType<TAbi, TEventName, true>;
  if (events.length === 0) {
    throw new TxVerificationError(`Transaction has no ${String(expect.eventName)} event`);
  }
  const event = expect.matches ? events.find((e) => expect.matches!(e.args)) : events[0];
  if (!event) {
    throw new TxVerificationError(
      `Transaction's ${String(expect.eventName)} event does not match ${expect.describe ?? "the request"}`,
    );
  }
  const needed = BigInt(expect.minConfirmations ?? 1);
  if (needed > 1n) {
    const head = await callChain(() => client.getBlockNumber({ cacheTime: 0 }));
    const confirmations = head - receipt.blockNumber + 1n;
    if (confirmations < needed) {
      throw new TxVerificationError(`Transaction has ${confirmations} of ${needed} confirmations`);
    }
  }
  return { receipt, event, logs: receipt.logs };
}

/** A mined transaction's receipt, e.g. to learn who sent it (`from`): 400 when it is unknown or not mined yet, 503 when the RPC fails. */
export function transactionReceipt(client: PublicClient, hash: Hash): Promise<TransactionReceipt> {
  return fetchReceipt(client, hash);
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The receipt of `hash`. Not found: asked again for the client's receipt wait (a node behind the
 * head catches up within it); then, when the node knows the transaction as mined all the same, it
 * is behind on receipts (503), else the transaction is unknown or pending (400).
 */
async function fetchReceipt(client: PublicClient, hash: Hash): Promise<TransactionReceipt> {
  const deadline = Date.now() + receiptWaitMs(client);
  for (let attempt = 0; ; attempt++) {
    try {
      return await client.getTransactionReceipt({ hash });
    } catch (error) {
      if (!(error instanceof TransactionReceiptNotFoundError)) throw new ChainUnavailableError("Chain RPC unavailable");
    }
    const left = deadline - Date.now();
    if (left <= 0) break;
    await pause(Math.min(left, 250 * 2 ** attempt));
  }
  const transaction = await client.getTransaction({ hash }).catch((error: unknown) => {
    if (error instanceof TransactionNotFoundError) return null;
    throw new ChainUnavailableError("Chain RPC unavailable");
  });
  if (transaction?.blockNumber != null) {
    throw new ChainUnavailableError("Chain node behind: the transaction is mined but its receipt is not available yet", 2);
  }
  throw new TxVerificationError("Transaction not found or not yet mined");
}

async function callChain<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch {
    throw new ChainUnavailableError("Chain RPC unavailable");
  }
}
