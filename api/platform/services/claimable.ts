/**
 * A wallet's unclaimed emissions, per pod and epoch, computed from indexed state exactly as
 * PodManager computes them (`podOwnerClaimable`, `voterClaimable`, `podEmissions`, with the
 * rules of contracts/lib/EmissionMath.sol as src/lib/emissions.ts states them): the same
 * operands, the same order of multiplication and division, so every amount is equal wei for wei.
 *
 * - The owner's share of a pod is paid to the pod's owner at claim time: it is listed for the
 *   wallet that owns the pod now.
 * - Only closed epochs count: `currentEpoch` is the epoch of the latest indexed block (the state
 *   the amounts are computed from), read in the same snapshot as the rows.
 * - An entry is listed when at least one of its four amounts is positive (a claim of nothing
 *   reverts on chain).
 */
import { epochAt } from "../../../src/lib/epochs";
import { ownerShare, podShare, voterShare } from "../../../src/lib/emissions";
import type { OffchainDb } from "../../db/client";
import { serviceUnavailable } from "../../http/errors";
import { indexedBlockTime, listClaimableRows, type ClaimableRow } from "../repositories/claimable";
import { protocolRow } from "../repositories/stats";

export interface Amounts {
  core: bigint;
  primary: bigint;
}

export interface ClaimableEntry {
  podId: bigint;
  epoch: bigint;
  subnetId: bigint;
  primaryToken: `0x${string}` | null;
  owner: Amounts;
  voter: Amounts;
}

export interface TokenTotals {
  owner: bigint;
  voter: bigint;
  total: bigint;
}

export interface WalletClaimable {
  address: `0x${string}`;
  currentEpoch: bigint;
  coreToken: `0x${string}`;
  entries: ClaimableEntry[];
  totals: { core: TokenTotals; primary: Array<TokenTotals & { token: `0x${string}` }> };
}

/** SubnetManager keeps emission rates in Checkpoints.Trace208: `uint208(value)` keeps the low 208 bits. */
const UINT208_MASK = (1n << 208n) - 1n;

/** PodManager._validAt against the pod's current record. */
export function podValidAt(
  row: Pick<ClaimableRow, "mintEpoch" | "validityEpoch" | "invalidFromEpoch">,
  epoch: bigint,
): boolean {
  return (
    row.mintEpoch !== 0n &&
    epoch >= row.mintEpoch &&
    epoch <= row.validityEpoch &&
    (row.invalidFromEpoch === null || row.invalidFromEpoch === 0n || epoch < row.invalidFromEpoch)
  );
}

/** PodManager.podEmissions(podId, epoch) from the indexed row. */
export function podEmissionsOf(row: ClaimableRow): Amounts {
  if (row.subnetId === 0n || !podValidAt(row, row.epoch)) return { core: 0n, primary: 0n };
  const podNet = row.podUpVotes > row.podDownVotes ? row.podUpVotes - row.podDownVotes : 0n;
  const subnetNet = row.subnetPositiveNetVotes;
  const coreRate = (row.coreRate ?? 0n) & UINT208_MASK;
  const primaryRate = (row.primaryRate ?? 0n) & UINT208_MASK;
  return { core: podShare(coreRate, podNet, subnetNet), primary: podShare(primaryRate, podNet, subnetNet) };
}

/** podOwnerClaimable / voterClaimable of an unclaimed row of a closed epoch. */
export function shareOf(row: ClaimableRow): Amounts {
  const pod = podEmissionsOf(row);
  if (row.kind === "owner") return { core: ownerShare(pod.core), primary: ownerShare(pod.primary) };
  return {
    core: voterShare(pod.core, row.voterUpVotes, row.podUpVotes),
    primary: voterShare(pod.primary, row.voterUpVotes, row.podUpVotes),
  };
}

const positive = (a: Amounts) => a.core > 0n || a.primary > 0n;

/** Groups the rows into entries per (pod, epoch) and sums the totals (CORE, and each primary token). */
export function summarize(rows: ClaimableRow[]): Pick<WalletClaimable, "entries" | "totals"> {
  const entries: ClaimableEntry[] = [];
  const byKey = new Map<string, ClaimableEntry>();
  for (const row of rows) {
    const share = shareOf(row);
    if (!positive(share)) continue;
    const key = `${row.podId}:${row.epoch}`;
    let entry = byKey.get(key);
    if (!entry) {
      entry = {
        podId: row.podId,
        epoch: row.epoch,
        subnetId: row.subnetId,
        primaryToken: row.primaryToken,
        owner: { core: 0n, primary: 0n },
        voter: { core: 0n, primary: 0n },
      };
      byKey.set(key, entry);
      entries.push(entry);
    }
    entry[row.kind] = share;
  }
  const core: TokenTotals = { owner: 0n, voter: 0n, total: 0n };
  const primary = new Map<string, TokenTotals & { token: `0x${string}` }>();
  for (const entry of entries) {
    core.owner += entry.owner.core;
    core.voter += entry.voter.core;
    const amount = entry.owner.primary + entry.voter.primary;
    if (amount === 0n || entry.primaryToken === null) continue;
    let totals = primary.get(entry.primaryToken);
    if (!totals)
      primary.set(entry.primaryToken, (totals = { token: entry.primaryToken, owner: 0n, voter: 0n, total: 0n }));
    totals.owner += entry.owner.primary;
    totals.voter += entry.voter.primary;
    totals.total += amount;
  }
  core.total = core.owner + core.voter;
  return { entries, totals: { core, primary: [...primary.values()] } };
}

/**
 * `address`'s unclaimed emissions (lower-case address). One read-only repeatable-read
 * transaction: the clock and the rows come from one snapshot of the indexer's commits.
 */
export async function walletClaimable(
  db: OffchainDb,
  viewsSchema: string,
  address: `0x${string}`,
): Promise<WalletClaimable> {
  return db.transaction(
    async (tx) => {
      const protocol = await protocolRow(tx);
      const lastIndexedAt = await indexedBlockTime(tx, viewsSchema);
      if (!protocol?.epochGenesis || !protocol.epochLength || lastIndexedAt === undefined) {
        throw serviceUnavailable("Indexer not ready");
      }
      const currentEpoch =
        lastIndexedAt < protocol.epochGenesis
          ? 1n
          : epochAt(lastIndexedAt, protocol.epochGenesis, protocol.epochLength);
      const rows = await listClaimableRows(tx, address, currentEpoch);
      return { address, currentEpoch, coreToken: protocol.coreToken, ...summarize(rows) };
    },
    { isolationLevel: "repeatable read", accessMode: "read only" },
  );
}
