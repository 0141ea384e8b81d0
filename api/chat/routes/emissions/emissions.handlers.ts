import type { Logger } from "pino";
import { maxUint256, parseEventLogs, type Hash } from "viem";
import { PodManagerAbi } from "../../../../abis";
import { toTokenString } from "../../../../chain/units";
import { badRequest, HttpError, notFound, serviceUnavailable } from "../../../http/errors";
import { chainOf, serverWalletOf, type ChatHandler } from "../../app-services";
import type { ChatChain } from "../../services/chain";
import type { EmissionsScan } from "../../services/emissions";
import { ContractRevertError, type ServerWallet } from "../../services/server-wallet";
import { scanPodEmissions } from "../../services/emissions";
import type * as routes from "./emissions.routes";

/** A token id: decimal digits, at most uint256. */
export function parsePodId(value: string): bigint {
  if (!/^\d{1,78}$/.test(value)) throw badRequest("Invalid podId");
  const id = BigInt(value);
  if (id > maxUint256) throw badRequest("Invalid podId");
  return id;
}

/** An epoch number: a positive integer (epochs count from 1). */
export function parseFromEpoch(value: string | undefined): bigint | undefined {
  if (value === undefined) return undefined;
  if (!/^\d{1,20}$/.test(value) || BigInt(value) < 1n) throw badRequest("Invalid fromEpoch: must be an integer of at least 1");
  return BigInt(value);
}

async function requireExistingPod(chain: ChatChain, podId: bigint): Promise<string> {
  const owner = await chain.podOwner(podId);
  if (!owner) throw notFound("Pod not found");
  return owner.toLowerCase();
}

function epochsBody(scan: EmissionsScan) {
  return scan.epochs.map((entry) => ({
    epoch: Number(entry.epoch),
    amount: toTokenString(entry.core),
    claimed: entry.claimed,
    ...(entry.primary > 0n ? { amountPrimaryToken: toTokenString(entry.primary) } : {}),
  }));
}

export const checkEmissions: ChatHandler<typeof routes.checkRoute> = async (c) => {
  const ctx = c.get("services");
  const podId = parsePodId(c.req.valid("param").podId);
  const fromEpoch = parseFromEpoch(c.req.valid("query").fromEpoch);
  const chain = chainOf(ctx);
  await requireExistingPod(chain, podId);
  const scan = await scanPodEmissions(ctx.db, chain, podId, fromEpoch);
  return c.json(
    {
      podId: Number(podId),
      currentEpoch: Number(scan.currentEpoch),
      totalClaimable: toTokenString(scan.totalDue.core),
      epochs: epochsBody(scan),
      moreEpochsAvailable: scan.moreEpochsAvailable,
      ...(scan.totalDue.primary > 0n ? { totalClaimablePrimaryToken: toTokenString(scan.totalDue.primary) } : {}),
    },
    200,
  );
};

/** Reverts that mean "someone else claimed this epoch in the meantime": the epoch is skipped. */
const ALREADY_SETTLED = new Set(["AlreadyClaimed", "NothingToClaim"]);

type Claimer = { chain: ChatChain; serverWallet: ServerWallet; logger: Logger };

/** One `claimPodOwnerEmissions` per epoch due, in parallel; epochs settled meanwhile are skipped. */
async function sendClaims({ chain, serverWallet, logger }: Claimer, podId: bigint, due: { epoch: bigint }[]) {
  const sends = await Promise.allSettled(
    due.map((entry) =>
      serverWallet.send({
        address: chain.addresses.podManager,
        abi: PodManagerAbi,
        functionName: "claimPodOwnerEmissions",
        args: [podId, entry.epoch],
      }),
    ),
  );
  const sent: Hash[] = [];
  let unexpectedFailures = 0;
  sends.forEach((outcome, i) => {
    if (outcome.status === "fulfilled") {
      sent.push(outcome.value);
      return;
    }
    const reason = outcome.reason;
    if (reason instanceof ContractRevertError && reason.errorName && ALREADY_SETTLED.has(reason.errorName)) return;
    unexpectedFailures++;
    logger.warn({ err: reason, podId: podId.toString(), epoch: due[i]!.epoch.toString() }, "claim not sent");
  });
  return { sent, unexpectedFailures };
}

/**
 * Awaits every sent claim: a reverted one is dropped, one whose receipt is unknown is kept (it
 * may still land), and the amounts of the PodOwnerEmissionsClaimed events are added up.
 */
async function collectClaims({ chain, serverWallet, logger }: Claimer, sent: Hash[], timeoutMs: number) {
  const txHashes: Hash[] = [];
  let core = 0n;
  let primary = 0n;
  await Promise.all(
    sent.map(async (hash) => {
      let receipt;
      try {
        receipt = await serverWallet.waitForReceipt(hash, timeoutMs);
      } catch (error) {
        logger.warn({ err: error, hash }, "claim receipt unavailable");
        txHashes.push(hash);
        return;
      }
      if (!receipt) {
        logger.warn({ hash }, "claim receipt did not arrive in time");
        txHashes.push(hash);
        return;
      }
      if (receipt.status !== "success") return;
      txHashes.push(hash);
      const events = parseEventLogs({
        abi: PodManagerAbi,
        eventName: "PodOwnerEmissionsClaimed",
        logs: receipt.logs.filter((log) => log.address.toLowerCase() === chain.addresses.podManager.toLowerCase()),
      });
      for (const event of events) {
        core += event.args.coreAmount;
        primary += event.args.primaryAmount;
      }
    }),
  );
  // Keep the answer in epoch order (the sends were in epoch order).
  txHashes.sort((a, b) => sent.indexOf(a) - sent.indexOf(b));
  return { txHashes, core, primary };
}

/**
 * Only the pod's owner may claim. Under the pod's lock (in-process mutex + PostgreSQL advisory
 * lock), the window is scanned afresh from the chain and one `claimPodOwnerEmissions` is sent per
 * epoch with something due, in parallel (the server wallet's nonce manager hands out nonces);
 * every receipt is awaited before the lock is released, so a concurrent claim sees them settled.
 */
export const claimEmissions: ChatHandler<typeof routes.claimRoute> = async (c) => {
  const ctx = c.get("services");
  const wallet = c.get("wallet");
  const podId = parsePodId(c.req.valid("param").podId);
  const fromEpoch = parseFromEpoch(c.req.valid("query").fromEpoch);
  const { chain, wallet: serverWallet } = serverWalletOf(ctx);
  const owner = await requireExistingPod(chain, podId);
  if (owner !== wallet) throw new HttpError(403, "Only the pod's owner may claim its emissions");
  const claimer: Claimer = { chain, serverWallet, logger: c.get("logger") };

  const result = await ctx.podLocks.withLock(podId, async () => {
    const scan = await scanPodEmissions(ctx.db, chain, podId, fromEpoch);
    if (scan.due.length === 0) throw badRequest("Nothing to claim");
    const { sent, unexpectedFailures } = await sendClaims(claimer, podId, scan.due);
    const collected = await collectClaims(claimer, sent, ctx.config.claimReceiptTimeoutMs);
    if (collected.txHashes.length === 0) {
      if (unexpectedFailures > 0) throw serviceUnavailable("Chain RPC unavailable");
      throw badRequest("Nothing to claim");
    }
    return { ...collected, moreEpochsAvailable: scan.moreEpochsAvailable };
  });

  return c.json(
    {
      podId: Number(podId),
      claimed: result.txHashes.length > 0,
      totalClaimed: toTokenString(result.core),
      txHashes: result.txHashes,
      moreEpochsAvailable: result.moreEpochsAvailable,
      ...(result.primary > 0n ? { totalClaimedPrimaryToken: toTokenString(result.primary) } : {}),
    },
    200,
  );
};
