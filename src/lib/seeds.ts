/**
 * Which pool an EmissionPoolSeeded event filled. Pure module.
 *
 * `seedEmissionPool(subnetId, coreAmount, primaryAmount)` emits one event per non-zero amount,
 * CORE first, each carrying the token. The token tells the pool apart unless the datanet's
 * primary token is CORE itself; then the call's arguments (when the transaction called the
 * SubnetManager directly) or a CORE seed just before it in the same transaction decide.
 */
import type { PoolKind } from "./enums";

export function seedPool(input: {
  token: string;
  coreToken: string;
  primaryToken: string;
  /** A CORE-pool seed of the same datanet two logs earlier in the same transaction. */
  coreSeedJustBefore: boolean;
  /** Decoded `seedEmissionPool` arguments of the transaction, when it was a direct call. */
  call?: { subnetId: bigint; coreAmount: bigint; primaryAmount: bigint } | undefined;
  subnetId: bigint;
  amount: bigint;
}): PoolKind {
  const token = input.token.toLowerCase();
  const core = input.coreToken.toLowerCase();
  const primary = input.primaryToken.toLowerCase();
  if (token !== core) return "primary";
  if (primary !== core) return "core";
  if (input.coreSeedJustBefore) return "primary";
  const call = input.call;
  if (call && call.subnetId === input.subnetId) {
    if (call.coreAmount === 0n) return "primary";
    if (call.primaryAmount === 0n) return "core";
    // both non-zero: the CORE event comes first (the second one found coreSeedJustBefore)
    return "core";
  }
  return "core";
}
