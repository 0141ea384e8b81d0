/**
 * Names for the contracts' enum values (SubnetManager.Param, FeeSplit.FeeKind). Pure module.
 */

/** SubnetManager.Param, in declaration order (the event carries the index). */
export const SUBNET_PARAMS = [
  "AccessFeeCORE",
  "AccessFeePrimaryToken",
  "PublishingFeeCORE",
  "PublishingFeePrimaryToken",
  "RepublishingFeeCORE",
  "EmissionsPerEpochCORE",
  "EmissionsPerEpochPrimaryToken",
] as const;

export type SubnetParam = (typeof SUBNET_PARAMS)[number];

/** The `datanet` column that holds each parameter's latest value. */
export const SUBNET_PARAM_COLUMNS = {
  AccessFeeCORE: "accessFeeCORE",
  AccessFeePrimaryToken: "accessFeePrimaryToken",
  PublishingFeeCORE: "publishingFeeCORE",
  PublishingFeePrimaryToken: "publishingFeePrimaryToken",
  RepublishingFeeCORE: "republishingFeeCORE",
  EmissionsPerEpochCORE: "emissionsPerEpochCORE",
  EmissionsPerEpochPrimaryToken: "emissionsPerEpochPrimaryToken",
} as const satisfies Record<SubnetParam, string>;

export type SubnetParamColumn = (typeof SUBNET_PARAM_COLUMNS)[SubnetParam];

export function subnetParamName(index: number | bigint): SubnetParam {
  const name = SUBNET_PARAMS[Number(index)];
  if (name === undefined) throw new RangeError(`unknown SubnetManager.Param ${index}`);
  return name;
}

export function subnetParamColumn(param: SubnetParam): SubnetParamColumn {
  return SUBNET_PARAM_COLUMNS[param];
}

/** FeeSplit.FeeKind, in declaration order, as stored in `feeCollection.kind`. */
export const FEE_KINDS = ["creation", "access", "publishing", "republishing"] as const;

export type FeeKind = (typeof FEE_KINDS)[number];

export function feeKindName(index: number | bigint): FeeKind {
  const name = FEE_KINDS[Number(index)];
  if (name === undefined) throw new RangeError(`unknown FeeSplit.FeeKind ${index}`);
  return name;
}

export type ClaimKind = "owner" | "voter";

/** Which pool of a datanet an emission-pool seed went to. */
export type PoolKind = "core" | "primary";
