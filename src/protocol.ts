// The `protocol` singleton: addresses from the config, parameters read once from the contracts.
// (Loaded by Ponder like every file under src/; it registers no handlers.)
import type { Context } from "ponder:registry";
import { protocol } from "ponder:schema";
import { PodManagerAbi, SubnetManagerAbi, VeCoreAbi } from "../abis";
import { epochAt } from "./lib/epochs";

type ProtocolContext = Pick<Context, "db" | "client" | "contracts" | "chain">;
type ProtocolRow = typeof protocol.$inferSelect;
type ProtocolFields = Partial<Omit<ProtocolRow, "id" | "coreToken" | "veCore" | "subnetManager" | "podManager">>;

export type ProtocolGroup = "VeCore" | "SubnetManager" | "PodManager";

function single(address: unknown): `0x${string}` {
  if (typeof address !== "string") throw new Error("expected one address per contract in the config");
  return address as `0x${string}`;
}

export async function upsertProtocol(context: ProtocolContext, blockNumber: bigint, fields: ProtocolFields) {
  const { contracts } = context;
  await context.db
    .insert(protocol)
    .values({
      id: context.chain.id,
      coreToken: single(contracts.CoreToken.address),
      veCore: single(contracts.VeCore.address),
      subnetManager: single(contracts.SubnetManager.address),
      podManager: single(contracts.PodManager.address),
      ...fields,
      updatedAtBlock: blockNumber,
    })
    .onConflictDoUpdate({ ...fields, updatedAtBlock: blockNumber });
}

/** Reads one contract's parameters at `blockNumber` (throws when it is not deployed there). */
async function readGroup(context: ProtocolContext, group: ProtocolGroup, blockNumber: bigint): Promise<ProtocolFields> {
  const { client, contracts } = context;
  if (group === "VeCore") {
    const address = single(contracts.VeCore.address);
    const read = (functionName: "genesis" | "epochLength" | "minStakeDuration" | "maxStakeDuration") =>
      client.readContract({ abi: VeCoreAbi, address, functionName, blockNumber });
    const [epochGenesis, epochLength, minStakeDuration, maxStakeDuration] = await Promise.all([
      read("genesis"),
      read("epochLength"),
      read("minStakeDuration"),
      read("maxStakeDuration"),
    ]);
    return { epochGenesis, epochLength, minStakeDuration, maxStakeDuration };
  }
  if (group === "SubnetManager") {
    const address = single(contracts.SubnetManager.address);
    const [subnetCreationFee, performancePool, burnAddress] = await Promise.all([
      client.readContract({ abi: SubnetManagerAbi, address, functionName: "subnetCreationFee", blockNumber }),
      client.readContract({ abi: SubnetManagerAbi, address, functionName: "performancePool", blockNumber }),
      client.readContract({ abi: SubnetManagerAbi, address, functionName: "BURN_ADDRESS", blockNumber }),
    ]);
    return { subnetCreationFee, performancePool, burnAddress };
  }
  const address = single(contracts.PodManager.address);
  const podValidityPeriod = await client.readContract({
    abi: PodManagerAbi,
    address,
    functionName: "podValidityPeriod",
    blockNumber,
  });
  return { podValidityPeriod };
}

function missingGroups(row: ProtocolRow | null): ProtocolGroup[] {
  const missing: ProtocolGroup[] = [];
  if (row?.epochGenesis == null || row.epochLength == null) missing.push("VeCore");
  if (row?.subnetCreationFee == null || row.performancePool == null) missing.push("SubnetManager");
  if (row?.podValidityPeriod == null) missing.push("PodManager");
  return missing;
}

/**
 * Setup: reads the contract's parameters at its start block. When the start block precedes
 * the deployment (a shared START_BLOCK), the read fails and `ensureProtocol` fills them in
 * from the first event that needs them.
 */
export async function setupProtocol(context: ProtocolContext, group: ProtocolGroup, blockNumber: bigint) {
  let fields: ProtocolFields = {};
  try {
    fields = await readGroup(context, group, blockNumber);
  } catch {
    // not deployed at the start block: left to ensureProtocol
  }
  await upsertProtocol(context, blockNumber, fields);
}

/**
 * The protocol row, first reading the parameters of `groups` that are still missing at
 * `blockNumber` — a block where those contracts exist (the contract that emitted the event;
 * VeCore for PodManager and SubnetManager events, whose constructors take its address).
 * Reads nothing once the row is complete.
 */
export async function ensureProtocol(
  context: ProtocolContext,
  blockNumber: bigint,
  groups: ProtocolGroup[],
): Promise<ProtocolRow | null> {
  const row = await context.db.find(protocol, { id: context.chain.id });
  const missing = missingGroups(row).filter((group) => groups.includes(group));
  if (missing.length === 0) return row;
  let fields: ProtocolFields = {};
  for (const group of missing) fields = { ...fields, ...(await readGroup(context, group, blockNumber)) };
  await upsertProtocol(context, blockNumber, fields);
  return context.db.find(protocol, { id: context.chain.id });
}

/** VeCore.currentEpoch() at a block, from the stored clock parameters. */
export async function epochOfBlock(context: ProtocolContext, block: { number: bigint; timestamp: bigint }): Promise<bigint> {
  const row = await ensureProtocol(context, block.number, ["VeCore"]);
  if (row?.epochGenesis == null || row.epochLength == null) throw new Error("VeCore clock parameters unknown");
  return epochAt(block.timestamp, row.epochGenesis, row.epochLength);
}
