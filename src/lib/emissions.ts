/**
 * The protocol's fee split and emission rules (contracts/lib/FeeSplit.sol, EmissionMath.sol),
 * for consumers that compute expected amounts from indexed rows. Pure module.
 */
import type { FeeKind } from "./enums";

const BPS = 10_000n;
const OWNER_SHARE_BPS = 5_000n;

export function splitFee(kind: FeeKind, amount: bigint): { burnt: bigint; toPerformancePool: bigint; locked: bigint } {
  const [poolBps, burnBps] = kind === "creation" ? [5_000n, 2_500n] : [1_000n, 4_500n];
  const toPerformancePool = (amount * poolBps) / BPS;
  const burnt = (amount * burnBps) / BPS;
  return { burnt, toPerformancePool, locked: amount - toPerformancePool - burnt };
}

export function podShare(subnetEmission: bigint, podNet: bigint, subnetNet: bigint): bigint {
  if (subnetNet === 0n) return 0n;
  return (subnetEmission * podNet) / subnetNet;
}

export function ownerShare(podEmission: bigint): bigint {
  return (podEmission * OWNER_SHARE_BPS) / BPS;
}

export function voterShare(podEmission: bigint, voterUp: bigint, podUp: bigint): bigint {
  if (podUp === 0n) return 0n;
  return ((podEmission - ownerShare(podEmission)) * voterUp) / podUp;
}
