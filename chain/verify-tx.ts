import {
  isAddressEqual,
  parseEventLogs,
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

/** A transaction that does not prove what the caller claims: the surfaces answer 400. */
export class TxVerificationError extends Error {
  readonly status = 400;
}

/** The chain could not be asked (RPC down): the surfaces answer 503, and nothing is recorded. */
export class ChainUnavailableError extends Error {
  readonly status = 503;
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

async function fetchReceipt(client: PublicClient, hash: Hash): Promise<TransactionReceipt> {
  try {
    return await client.getTransactionReceipt({ hash });
  } catch (error) {
    if (error instanceof TransactionReceiptNotFoundError) {
      throw new TxVerificationError("Transaction not found or not yet mined");
    }
    throw new ChainUnavailableError("Chain RPC unavailable");
  }
}

async function callChain<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch {
    throw new ChainUnavailableError("Chain RPC unavailable");
  }
}
