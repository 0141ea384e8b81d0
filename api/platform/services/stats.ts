/**
 * Network and datanet statistics (spec §4.1), computed on each request from the indexed chain
 * tables and the off-chain rows; nothing is stored by hand. Amounts are whole CORE (exact decimal
 * conversion from wei); USD estimates use the configured price source.
 */
import { toTokenNumber } from "../../../chain/units";
import { epochAt } from "../../../src/lib/epochs";
import type { OffchainDb } from "../../db/client";
import { notFound, serviceUnavailable } from "../../http/errors";
import type { PlatformRuntime } from "../app-services";
import {
  accessHolderCount,
  activePodCount,
  activeSubnetIds,
  collectedFees,
  feeTotals,
  latestIndexedBlockTime,
  lockTotals,
  protocolRow,
  publishedSubnetWithChain,
  totalPods,
  totalUsers,
} from "../repositories/stats";
import { usdValue } from "./price";

export interface ChainClock {
  epochGenesis: bigint;
  epochLength: bigint;
  coreToken: string;
  /** Block time of the latest indexed block (unix seconds), when any. */
  lastIndexedAt: bigint | undefined;
  /** The epoch at max(now, last indexed block time): a local chain may run ahead of the wall clock. */
  currentEpoch: bigint;
}

/** The protocol's epoch clock from the indexed `protocol` row; 503 until the indexer has seen the deployment. */
export async function chainClock(db: OffchainDb, viewsSchema: string, now = Date.now()): Promise<ChainClock> {
  const [protocol, lastIndexedAt] = await Promise.all([protocolRow(db), latestIndexedBlockTime(db, viewsSchema)]);
  if (!protocol?.epochGenesis || !protocol.epochLength) throw serviceUnavailable("Indexer not ready");
  const wallClock = BigInt(Math.floor(now / 1000));
  const time = lastIndexedAt !== undefined && lastIndexedAt > wallClock ? lastIndexedAt : wallClock;
  const currentEpoch = time < protocol.epochGenesis ? 1n : epochAt(time, protocol.epochGenesis, protocol.epochLength);
  return {
    epochGenesis: protocol.epochGenesis,
    epochLength: protocol.epochLength,
    coreToken: protocol.coreToken,
    lastIndexedAt,
    currentEpoch,
  };
}

const isoOfSeconds = (seconds: bigint) => new Date(Number(seconds) * 1000).toISOString();

export async function networkStats(db: OffchainDb, context: PlatformRuntime, viewsSchema: string) {
  const clock = await chainClock(db, viewsSchema);
  const [pods, subnetIds, fees, locks, userCount, price] = await Promise.all([
    totalPods(db),
    activeSubnetIds(db),
    feeTotals(db, clock.coreToken),
    lockTotals(db),
    totalUsers(db),
    context.price.coreUsd(),
  ]);
  return {
    totalPods: pods,
    totalActiveSubnets: subnetIds.length,
    totalSubnetFees: toTokenNumber(fees.amount),
    totalSubnetFeesBurnt: toTokenNumber(fees.burnt),
    totalSubnetFeesAccumulatedToPerformancePool: toTokenNumber(fees.toPerformancePool),
    totalSubnetFeesLocked: toTokenNumber(fees.locked),
    epochLengthSeconds: Number(clock.epochLength),
    governanceLocked: toTokenNumber(locks.governance),
    communityLocked: toTokenNumber(locks.total - locks.governance),
    lastUpdatedAt: isoOfSeconds(clock.lastIndexedAt ?? clock.epochGenesis),
    corePriceUSD: price.usd,
    totalCoreLocked: toTokenNumber(locks.total),
    totalUsers: userCount,
    totalLocks: locks.locks,
    // per distinct wallet holding an open lock, exact to the wei (rounded down)
    averageLockedPerUser: locks.holders === 0 ? 0 : toTokenNumber(locks.total / BigInt(locks.holders)),
    activeSubnetIds: subnetIds.map((id) => ({ id })),
  };
}

export async function subnetStats(db: OffchainDb, context: PlatformRuntime, viewsSchema: string, ref: string) {
  const row = await publishedSubnetWithChain(db, ref);
  if (!row) throw notFound("Datanet not found");
  const { draft, subnet } = row;
  const clock = await chainClock(db, viewsSchema);
  const [activePods, accessCount, fees, price] = await Promise.all([
    activePodCount(db, subnet.id, clock.currentEpoch),
    accessHolderCount(db, subnet.id),
    collectedFees(db, subnet.id, clock.coreToken),
    context.price.coreUsd(),
  ]);
  return {
    id: draft.id,
    tokenId: Number(subnet.id),
    subnetName: draft.subnetName,
    subnetDescription: draft.subnetDescription,
    cumulativeUpVotes: toTokenNumber(subnet.cumulativeUpVotes),
    cumulativeDownVotes: toTokenNumber(subnet.cumulativeDownVotes),
    createdAt: isoOfSeconds(subnet.createdAt),
    emissionsPerEpochCORE: toTokenNumber(subnet.emissionsPerEpochCORE),
    emissionsPerEpochPrimaryToken: toTokenNumber(subnet.emissionsPerEpochPrimaryToken, draft.nativeTokenDecimals),
    primaryTokenSymbol: draft.nativeTokenSymbol,
    activePodCount: activePods,
    userAccessCount: accessCount,
    coreSeedsBySubnetOwnerAmount: toTokenNumber(subnet.seededCoreByOwner),
    publishingFeeCORE: toTokenNumber(subnet.publishingFeeCORE),
    estimatedTotalPublishingFeeCollectedUSD: usdValue(fees.publishing, price),
    accessFeeCORE: toTokenNumber(subnet.accessFeeCORE),
    estimatedTotalAccessFeeCollectedUSD: usdValue(fees.access, price),
  };
}
