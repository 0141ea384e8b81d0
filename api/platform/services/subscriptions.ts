/**
 * Subscription packages and orders. Every public datanet sells the configured packages
 * (SUBSCRIPTION_PACKAGES); a package costs the datanet's CORE access fee and is paid with
 * `SubnetManager.accessSubnetWithCOREFee(subnetId, agentWallet)` from the wallet the agent acts for
 * (its bound wallet, see agent-wallets.ts). The order keeps that wallet: later checks of the
 * payment use it, so binding another wallet afterwards does not strand a CREATED order.
 *
 * An order's txHash must be that call, successful, sent by the agent's wallet to the SubnetManager,
 * granting this datanet's access to the agent's wallet (SubnetAccessGranted, token CORE, payer the
 * agent), with a CORE Transfer from the agent's wallet to the SubnetManager of exactly the access fee
 * in force at the payment's block (no Transfer when that fee is 0). Such an order is recorded
 * CREATED while the payment has fewer than ORDER_MIN_CONFIRMATIONS confirmations and VERIFIED once
 * it has them (at once with the default of 1); CREATED orders are checked again whenever the agent
 * lists its orders or downloads the dataset. A VERIFIED order expires `subscriptionDays` after its
 * verification.
 */
import { randomUUID } from "node:crypto";
import {
  decodeFunctionData,
  isAddressEqual,
  parseEventLogs,
  TransactionNotFoundError,
  type Address,
  type Hash,
  type PublicClient,
  type TransactionReceipt,
} from "viem";
import { CoreTokenAbi, SubnetManagerAbi } from "../../../abis";
import { BASE_CHAIN_ID } from "../../../chain/chain";
import type { ProtocolConfig } from "../../../chain/protocol-config";
import { TOKEN_DECIMALS, toTokenNumber } from "../../../chain/units";
import { ChainUnavailableError, TxVerificationError, verifyTransaction } from "../../../chain/verify-tx";
import type { OffchainDb } from "../../db/client";
import { chainErrorToHttp } from "../../http/errors";
import type { AgentsConfig, SubscriptionPackageConfig } from "../config";
import type { PlatformContext } from "../context";
import {
  insertOrder,
  listAgentOrders,
  markOrderVerified,
  subscriptionAccess,
  type OrderRow,
} from "../repositories/subscriptions";
import { agentWalletFor } from "./agent-wallets";
import { assertTransactionUnused, ORDER_TX_KIND, recordWithTransaction } from "./votes";

const DAY_MS = 86_400_000;

export function presentPackage(
  pkg: SubscriptionPackageConfig,
  { accessFeeCORE, contracts }: { accessFeeCORE: bigint; contracts: ProtocolConfig["contracts"] },
) {
  return {
    id: pkg.id,
    subscriptionDays: pkg.subscriptionDays,
    paymentDetails: {
      amount: toTokenNumber(accessFeeCORE),
      receiverAddress: contracts.SubnetManager.address.toLowerCase(),
      currencyAddress: contracts.CoreToken.address.toLowerCase(),
      currencyDecimals: TOKEN_DECIMALS,
      chainId: BASE_CHAIN_ID,
    },
  };
}

export type VerifiedPayment = { amount: bigint; blockNumber: bigint; confirmations: bigint };

/** Checks a package payment (see the module comment); 400 TxVerificationError when it does not prove one. */
export async function verifyPackagePayment(
  client: PublicClient,
  contracts: { SubnetManager: { address: Address }; CoreToken: { address: Address } },
  {
    hash,
    wallet,
    subnetTokenId,
    receipt: known,
  }: { hash: Hash; wallet: Address; subnetTokenId: bigint; /** Already fetched by the caller. */ receipt?: TransactionReceipt },
): Promise<VerifiedPayment> {
  const subnetManager = contracts.SubnetManager.address;
  const core = contracts.CoreToken.address;
  const { receipt, event } = await verifyTransaction(client, {
    hash,
    receipt: known,
    from: wallet,
    contract: { address: subnetManager, name: "SubnetManager" },
    abi: SubnetManagerAbi,
    eventName: "SubnetAccessGranted",
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
  if (
    call?.functionName !== "accessSubnetWithCOREFee" ||
    call.args[0] !== subnetTokenId ||
    !isAddressEqual(call.args[1], wallet)
  ) {
    throw new TxVerificationError("Transaction is not accessSubnetWithCOREFee for this datanet and the agent's wallet");
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
  return { amount: fee, blockNumber: receipt.blockNumber, confirmations: head - receipt.blockNumber + 1n };
}

async function chainCall<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof TransactionNotFoundError)
      throw new TxVerificationError("Transaction not found or not yet mined");
    throw new ChainUnavailableError("Chain RPC unavailable");
  }
}

/** Records an order for a verified payment; returns its id. */
export async function createOrder(
  db: OffchainDb,
  context: PlatformContext,
  config: AgentsConfig,
  {
    agent,
    subnet,
    pkg,
    txHash,
    now = new Date(),
  }: {
    agent: { id: string; walletAddress: Address | null };
    subnet: { id: string; tokenId: bigint };
    pkg: SubscriptionPackageConfig;
    txHash: Hash;
    now?: Date;
  },
): Promise<string> {
  await assertTransactionUnused(db, txHash);
  const sender = await agentWalletFor(db, context, agent, txHash, now);
  const wallet = sender.wallet;
  const { client, protocol } = context.chain();
  let payment: VerifiedPayment;
  try {
    payment = await verifyPackagePayment(client, protocol.contracts, {
      hash: txHash,
      wallet,
      subnetTokenId: subnet.tokenId,
      receipt: sender.receipt,
    });
  } catch (error) {
    throw chainErrorToHttp(error);
  }
  const verified = payment.confirmations >= BigInt(config.orderMinConfirmations);
  const id = randomUUID();
  await recordWithTransaction(db, { txHash, kind: ORDER_TX_KIND, recordId: id, alongside: sender.alongside }, (executor) =>
    insertOrder(executor, {
      id,
      agentId: agent.id,
      subnetId: subnet.id,
      subnetTokenId: subnet.tokenId.toString(),
      packageId: pkg.id,
      walletAddress: wallet.toLowerCase(),
      subscriptionDays: pkg.subscriptionDays,
      amount: payment.amount.toString(),
      status: verified ? "VERIFIED" : "CREATED",
      txHash: txHash.toLowerCase(),
      blockNumber: payment.blockNumber.toString(),
      verifiedAt: verified ? now : null,
      expiresAt: verified ? new Date(now.getTime() + pkg.subscriptionDays * DAY_MS) : null,
    }),
  );
  return id;
}

/**
 * Checks the agent's CREATED orders for the datanet again and verifies those whose payment now has
 * the confirmations; a payment that no longer verifies (or an unreachable chain) leaves the order CREATED.
 */
export async function refreshCreatedOrders(
  db: OffchainDb,
  context: PlatformContext,
  config: AgentsConfig,
  { agent, subnetDraftId, now = new Date() }: { agent: { id: string }; subnetDraftId: string; now?: Date },
): Promise<OrderRow[]> {
  const orders = await listAgentOrders(db, agent.id, subnetDraftId);
  const pending = orders.filter((order) => order.status === "CREATED");
  if (pending.length === 0) return orders;
  const { client, protocol } = context.chain();
  let changed = false;
  for (const order of pending) {
    try {
      const payment = await verifyPackagePayment(client, protocol.contracts, {
        hash: order.txHash as Hash,
        wallet: order.walletAddress as Address,
        subnetTokenId: BigInt(order.subnetTokenId),
      });
      if (payment.confirmations < BigInt(config.orderMinConfirmations)) continue;
      await markOrderVerified(db, order.id, {
        verifiedAt: now,
        expiresAt: new Date(now.getTime() + order.subscriptionDays * DAY_MS),
      });
      changed = true;
    } catch (error) {
      if (error instanceof TxVerificationError || error instanceof ChainUnavailableError) continue;
      throw error;
    }
  }
  return changed ? listAgentOrders(db, agent.id, subnetDraftId) : orders;
}

export function presentOrder(order: OrderRow) {
  return {
    id: order.id,
    package: { id: order.packageId, subscriptionDays: order.subscriptionDays },
    status: order.status as "CREATED" | "VERIFIED",
    expiresAt: order.expiresAt ? order.expiresAt.toISOString() : null,
  };
}

/**
 * Whether the agent may download the datanet's dataset now (after checking its CREATED orders
 * again): `active` only with an order whose payment is in the indexed chain state; `unindexed`
 * when its paid orders wait for the indexer (or were dropped by a reorg and are about to be undone).
 */
export async function subscriptionStatus(
  db: OffchainDb,
  context: PlatformContext,
  config: AgentsConfig,
  { agent, subnetDraftId, now = new Date() }: { agent: { id: string }; subnetDraftId: string; now?: Date },
): Promise<"active" | "unindexed" | "none"> {
  const access = await subscriptionAccess(db, { agentId: agent.id, subnetDraftId, now });
  if (access === "active") return access;
  await refreshCreatedOrders(db, context, config, { agent, subnetDraftId, now });
  return subscriptionAccess(db, { agentId: agent.id, subnetDraftId, now });
}
