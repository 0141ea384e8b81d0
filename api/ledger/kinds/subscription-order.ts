/**
 * A subscription order's payment: `accessSubnetWithCOREFee(subnetId, agentWallet)` granting the
 * datanet's access to the agent's wallet (`SubnetAccessGranted`, token CORE, payer the agent),
 * with a CORE Transfer to the SubnetManager of exactly the access fee in force at the payment's
 * block (none when that fee is 0). Its confirmations decide the order's status (the service's
 * ORDER_MIN_CONFIRMATIONS), not the platform's TX_MIN_CONFIRMATIONS.
 */
import { sql } from "drizzle-orm";
import { decodeFunctionData, isAddressEqual, parseEventLogs, TransactionNotFoundError, type Address, type Hash } from "viem";
import { CoreTokenAbi, SubnetManagerAbi } from "../../../abis";
import { ChainUnavailableError, TxVerificationError } from "../../../chain/verify-tx";
import { contractEvent, type LedgerChainAccess } from "../chain";
import { changed, holds, recordKind, type Sender } from "../kind";
import { moveSubscriptionOrderStatement, subscriptionOrderByTx } from "../records";

const SubnetAccessGranted = contractEvent("SubnetManager", "SubnetAccessGranted");

/** The payment's facts, and the wallet that paid. */
export type VerifiedPayment = { wallet: Address; amount: bigint; blockNumber: bigint; confirmations: bigint };

async function chainCall<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof TransactionNotFoundError)
      throw new TxVerificationError("Transaction not found or not yet mined");
    throw new ChainUnavailableError("Chain RPC unavailable");
  }
}

/** Checks a package payment (see the module comment); TxVerificationError when it does not prove one. */
export async function verifyPackagePayment(
  context: LedgerChainAccess,
  hash: Hash,
  { wallet, subnetTokenId, receipt: known }: Sender & { subnetTokenId: bigint },
): Promise<VerifiedPayment> {
  const { client, protocol } = context.chain();
  const subnetManager = protocol.contracts.SubnetManager.address;
  const core = protocol.contracts.CoreToken.address;
  const { receipt, event } = await SubnetAccessGranted.verify(context, {
    hash,
    receipt: known,
    from: wallet,
    minConfirmations: 1,
    matches: (args) =>
      args.subnetId === subnetTokenId &&
      isAddressEqual(args.account, wallet) &&
      isAddressEqual(args.payer, wallet) &&
      isAddressEqual(args.token, core),
    describe: "access to this datanet for the agent's wallet, paid in CORE by it",
  });
  const transaction = await chainCall(() => client.getTransaction({ hash }));
  let call;
  try {
    call = decodeFunctionData({ abi: SubnetManagerAbi, data: transaction.input });
  } catch {
    call = undefined;
  }
  // accessSubnetWithREPPOFee is the same function under the live clients' name
  if (
    (call?.functionName !== "accessSubnetWithCOREFee" && call?.functionName !== "accessSubnetWithREPPOFee") ||
    call.args[0] !== subnetTokenId ||
    !isAddressEqual(call.args[1], wallet)
  ) {
    throw new TxVerificationError(
      "Transaction is not accessSubnetWithCOREFee (or accessSubnetWithREPPOFee) for this datanet and the agent's wallet",
    );
  }
  const fee = await chainCall(() =>
    client.readContract({
      address: subnetManager,
      abi: SubnetManagerAbi,
      functionName: "accessFeeCORE",
      args: [subnetTokenId],
      blockNumber: receipt.blockNumber,
    }),
  );
  if (event.args.fee !== fee) throw new TxVerificationError("Payment does not equal the datanet's access fee");
  if (fee > 0n) {
    const transfers = parseEventLogs({
      abi: CoreTokenAbi,
      eventName: "Transfer",
      logs: receipt.logs.filter((log) => isAddressEqual(log.address, core)),
    });
    const paid = transfers.some(
      (t) => isAddressEqual(t.args.from, wallet) && isAddressEqual(t.args.to, subnetManager) && t.args.value === fee,
    );
    if (!paid)
      throw new TxVerificationError("Transaction has no CORE transfer of the package amount to the SubnetManager");
  }
  const head = await chainCall(() => client.getBlockNumber({ cacheTime: 0 }));
  return { wallet, amount: fee, blockNumber: receipt.blockNumber, confirmations: head - receipt.blockNumber + 1n };
}

export const subscriptionOrder = recordKind({
  name: "subscription-order",
  on: SubnetAccessGranted,
  stage: 2,
  verify: verifyPackagePayment,
  async recheck(db, context, { txHash, from }) {
    const row = await subscriptionOrderByTx(db, txHash);
    if (!row) return changed("the order is gone");
    const payment = await verifyPackagePayment(context, txHash, { wallet: from, subnetTokenId: BigInt(row.subnetTokenId) });
    if (payment.amount.toString() !== row.amount) return changed(`the payment is now ${payment.amount}, not ${row.amount}`);
    return holds([moveSubscriptionOrderStatement(txHash, payment.blockNumber)]);
  },
  undo: (txHash) => [sql`DELETE FROM offchain.subscription_orders WHERE tx_hash = ${txHash}`],
});
