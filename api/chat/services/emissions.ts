import type { OffchainDb } from "../../db/client";
import { ownerClaimsBefore, podEpochsBefore } from "../repositories/emissions";
import type { ChatChain } from "./chain";

/** At most this many epochs are scanned by one emissions check or claim (spec §8). */
export const EPOCHS_PER_SCAN = 50n;
/** EmissionMath.OWNER_SHARE_BPS / BPS: the pod owner's half of a pod's emissions. */
const OWNER_SHARE_BPS = 5_000n;
const BPS = 10_000n;
/** Candidate epochs read from the chain in parallel while looking for the next one with something due. */
const READ_CHUNK = 50;

export interface Amounts {
  core: bigint;
  primary: bigint;
}

export interface EmissionEntry extends Amounts {
  epoch: bigint;
  claimed: boolean;
}

export interface EmissionsScan {
  podId: bigint;
  currentEpoch: bigint;
  /** The scanned epochs (at most 50 consecutive closed epochs), or null when none is closed yet. */
  window: { from: bigint; to: bigint } | null;
  /** Epochs of the window in which the pod had votes, oldest first. */
  epochs: EmissionEntry[];
  /** Unclaimed epochs of the window with something due. */
  due: EmissionEntry[];
  totalDue: Amounts;
  /** Some epoch after the window still has something due. */
  moreEpochsAvailable: boolean;
}

/** A closed epoch in which the pod had votes, as indexed. */
export interface VotedEpoch {
  epoch: bigint;
  /** The indexer has seen the owner's claim (it may lag the chain: the chain is asked too). */
  claimedIndexed: boolean;
  /** The indexed claim's amounts, when `claimedIndexed`. */
  claimedAmounts?: Amounts;
}

/** What a scan reads: candidate epochs from the index, amounts and claim flags from the chain. */
export interface EmissionsSource {
  currentEpoch(): Promise<bigint>;
  votedEpochs(podId: bigint, before: bigint): Promise<VotedEpoch[]>;
  claimable(podId: bigint, epoch: bigint): Promise<Amounts>;
  hasClaimed(podId: bigint, epoch: bigint): Promise<boolean>;
  podEmissions(podId: bigint, epoch: bigint): Promise<Amounts>;
}

const hasAny = (a: Amounts) => a.core > 0n || a.primary > 0n;
const ownerShare = (a: Amounts): Amounts => ({ core: (a.core * OWNER_SHARE_BPS) / BPS, primary: (a.primary * OWNER_SHARE_BPS) / BPS });

/**
 * The window of an emissions check or claim, without any server-side cursor:
 * - it starts at `fromEpoch` when given, else at the oldest closed epoch whose owner claim
 *   still pays something (per the chain's `podOwnerClaimable`), else it shows the latest 50
 *   closed epochs (nothing is due);
 * - it spans at most 50 epochs and ends before the current (open) epoch;
 * - due amounts are exactly `podOwnerClaimable`; a claimed epoch shows what its claim paid
 *   (the indexed claim, else the owner's share of `podEmissions`);
 * - `moreEpochsAvailable` is true when an epoch after the window still has something due.
 * The indexer only supplies candidate epochs (those in which the pod had votes).
 */
export async function scanEmissions(source: EmissionsSource, podId: bigint, fromEpoch?: bigint): Promise<EmissionsScan> {
  const currentEpoch = await source.currentEpoch();
  const lastClosed = currentEpoch - 1n;
  const voted = (await source.votedEpochs(podId, currentEpoch)).filter((v) => v.epoch >= 1n && v.epoch <= lastClosed);
  voted.sort((a, b) => (a.epoch < b.epoch ? -1 : a.epoch > b.epoch ? 1 : 0));

  const claimableCache = new Map<bigint, Promise<Amounts>>();
  const claimableOf = (epoch: bigint) => {
    let pending = claimableCache.get(epoch);
    if (!pending) claimableCache.set(epoch, (pending = source.claimable(podId, epoch)));
    return pending;
  };

  /** The first indexed-unclaimed voted epoch >= `min` with something due on chain. */
  const firstDueFrom = async (min: bigint): Promise<bigint | undefined> => {
    const candidates = voted.filter((v) => v.epoch >= min && !v.claimedIndexed).map((v) => v.epoch);
    for (let i = 0; i < candidates.length; i += READ_CHUNK) {
      const chunk = candidates.slice(i, i + READ_CHUNK);
      const amounts = await Promise.all(chunk.map(claimableOf));
      const found = chunk.find((_, j) => hasAny(amounts[j]!));
      if (found !== undefined) return found;
    }
    return undefined;
  };

  const empty: EmissionsScan = {
    podId,
    currentEpoch,
    window: null,
    epochs: [],
    due: [],
    totalDue: { core: 0n, primary: 0n },
    moreEpochsAvailable: false,
  };
  if (lastClosed < 1n) return empty;

  let start: bigint;
  if (fromEpoch !== undefined) start = fromEpoch;
  else start = (await firstDueFrom(1n)) ?? (lastClosed > EPOCHS_PER_SCAN ? lastClosed - EPOCHS_PER_SCAN + 1n : 1n);
  if (start > lastClosed) return empty;
  const end = start + EPOCHS_PER_SCAN - 1n < lastClosed ? start + EPOCHS_PER_SCAN - 1n : lastClosed;

  const inWindow = voted.filter((v) => v.epoch >= start && v.epoch <= end);
  const epochs = await Promise.all(
    inWindow.map(async (v): Promise<EmissionEntry> => {
      const due = await claimableOf(v.epoch);
      if (hasAny(due)) return { epoch: v.epoch, ...due, claimed: false };
      const claimed = v.claimedIndexed || (await source.hasClaimed(podId, v.epoch));
      if (!claimed) return { epoch: v.epoch, core: 0n, primary: 0n, claimed: false };
      const paid = v.claimedAmounts ?? ownerShare(await source.podEmissions(podId, v.epoch));
      return { epoch: v.epoch, ...paid, claimed: true };
    }),
  );
  const due = epochs.filter((e) => !e.claimed && hasAny(e));
  const totalDue = due.reduce((sum, e) => ({ core: sum.core + e.core, primary: sum.primary + e.primary }), {
    core: 0n,
    primary: 0n,
  });
  const moreEpochsAvailable = (await firstDueFrom(end + 1n)) !== undefined;
  return { podId, currentEpoch, window: { from: start, to: end }, epochs, due, totalDue, moreEpochsAvailable };
}

/** The scan's sources: the indexer's `podEpoch` and owner `claim` rows, and the chain. */
export function createEmissionsSource(db: OffchainDb, chainReads: ChatChain): EmissionsSource {
  return {
    currentEpoch: () => chainReads.currentEpoch(),
    async votedEpochs(podId, before) {
      const [rows, claims] = await Promise.all([
        podEpochsBefore(db, podId, before),
        ownerClaimsBefore(db, podId, before),
      ]);
      const claimed = new Map(claims.map((c) => [c.epoch, { core: c.core, primary: c.primary }]));
      return rows.map((row) => {
        const amounts = claimed.get(row.epoch);
        return { epoch: row.epoch, claimedIndexed: row.ownerClaimed || amounts !== undefined, claimedAmounts: amounts };
      });
    },
    claimable: (podId, epoch) => chainReads.podOwnerClaimable(podId, epoch),
    hasClaimed: (podId, epoch) => chainReads.hasPodOwnerClaimed(podId, epoch),
    podEmissions: (podId, epoch) => chainReads.podEmissions(podId, epoch),
  };
}

/** One scan of the pod owner's emissions (candidate epochs from the index, amounts from the chain). */
export function scanPodEmissions(db: OffchainDb, chain: ChatChain, podId: bigint, fromEpoch?: bigint) {
  return scanEmissions(createEmissionsSource(db, chain), podId, fromEpoch);
}
