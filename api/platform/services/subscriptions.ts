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
import type { Address, Hash } from "viem";
import { BASE_CHAIN_ID } from "../../../chain/chain";
import type { ProtocolConfig } from "../../../chain/protocol-config";
import { TOKEN_DECIMALS, toTokenNumber } from "../../../chain/units";
import { ChainUnavailableError, TxVerificationError } from "../../../chain/verify-tx";
import type { OffchainDb } from "../../db/client";
import { verifyPackagePayment } from "../../ledger/kinds/subscription-order";
import { record } from "../../ledger/ledger";
import { KINDS } from "../../ledger/registry";
import type { AgentsConfig, SubscriptionPackageConfig } from "../config";
import type { PlatformRuntime } from "../app-services";
import {
  insertOrder,
  listAgentOrders,
  markOrderVerified,
  subscriptionAccess,
  type OrderRow,
} from "../repositories/subscriptions";
import { agentWalletFor } from "./agent-wallets";

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

/** Records an order for a verified payment; returns its id. */
export async function createOrder(
  db: OffchainDb,
  context: PlatformRuntime,
  config: AgentsConfig,
  {
    agent,
    subnet,
    pkg,
    txHash,
    now = new Date(),
  }: {
    agent: { id: string; walletAddress: Address | null; ownWalletAddress: Address | null };
    subnet: { id: string; tokenId: bigint };
    pkg: SubscriptionPackageConfig;
    txHash: Hash;
    now?: Date;
  },
): Promise<string> {
  const id = randomUUID();
  await record(db, context, KINDS.subscriptionOrder, {
    txHash,
    claim: async () => ({ ...(await agentWalletFor(db, context, agent, txHash, now)), subnetTokenId: subnet.tokenId }),
    recordId: id,
    insert: (executor, payment) => {
      const verified = payment.confirmations >= BigInt(config.orderMinConfirmations);
      return insertOrder(executor, {
        id,
        agentId: agent.id,
        subnetId: subnet.id,
        subnetTokenId: subnet.tokenId.toString(),
        packageId: pkg.id,
        walletAddress: payment.wallet.toLowerCase(),
        subscriptionDays: pkg.subscriptionDays,
        amount: payment.amount.toString(),
        status: verified ? "VERIFIED" : "CREATED",
        txHash: txHash.toLowerCase(),
        blockNumber: payment.blockNumber.toString(),
        verifiedAt: verified ? now : null,
        expiresAt: verified ? new Date(now.getTime() + pkg.subscriptionDays * DAY_MS) : null,
      });
    },
  });
  return id;
}

/**
 * Checks the agent's CREATED orders for the datanet again and verifies those whose payment now has
 * the confirmations; a payment that no longer verifies (or an unreachable chain) leaves the order CREATED.
 */
export async function refreshCreatedOrders(
  db: OffchainDb,
  context: PlatformRuntime,
  config: AgentsConfig,
  { agent, subnetDraftId, now = new Date() }: { agent: { id: string }; subnetDraftId: string; now?: Date },
): Promise<OrderRow[]> {
  const orders = await listAgentOrders(db, agent.id, subnetDraftId);
  const pending = orders.filter((order) => order.status === "CREATED");
  if (pending.length === 0) return orders;
  let changed = false;
  for (const order of pending) {
    try {
      const payment = await verifyPackagePayment(context, order.txHash as Hash, {
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
  context: PlatformRuntime,
  config: AgentsConfig,
  { agent, subnetDraftId, now = new Date() }: { agent: { id: string }; subnetDraftId: string; now?: Date },
): Promise<"active" | "unindexed" | "none"> {
  const access = await subscriptionAccess(db, { agentId: agent.id, subnetDraftId, now });
  if (access === "active") return access;
  await refreshCreatedOrders(db, context, config, { agent, subnetDraftId, now });
  return subscriptionAccess(db, { agentId: agent.id, subnetDraftId, now });
}
