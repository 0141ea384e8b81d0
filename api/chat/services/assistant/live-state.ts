import type { Logger } from "pino";
import type pg from "pg";
import { toTokenString } from "../../../../chain/units";
import type { OffchainDb } from "../../../db/client";
import { chainReady } from "../../../http/readiness";
import { countPods, findProtocol } from "../../repositories/live-state";
import { walletPods } from "../../repositories/pods";
import type { ChatChain } from "../chain";
import { listSubnets, type SubnetInfo } from "../subnets";
import { createEmissionsSource, scanEmissions } from "../emissions";
import type { ChatMode } from "./classifier";
import type { Passage } from "./knowledge";

export interface LiveStats {
  /** As `/stats` reports it: the indexed protocol parameter, else VeCore.epochLength(). */
  epochLengthSeconds: number;
  currentEpoch: number | null;
  currentEpochEndsAt: string | null;
  totalPods: number | null;
  totalActiveSubnets: number | null;
  subnetCreationFeeCORE: string | null;
}

export interface WalletPodEmissions {
  podId: string;
  claimableCORE: bigint;
  claimablePrimary: bigint;
  dueEpochs: string[];
  moreEpochsAvailable: boolean;
}

export interface LiveState {
  stats?: LiveStats;
  subnets?: SubnetInfo[];
  /** The wallet's pods (current owner), ids as strings. */
  pods?: string[];
  emissions?: { totalCORE: bigint; totalPrimary: bigint; pods: WalletPodEmissions[] };
}

const MAX_PODS_SCANNED = 20;

export interface LiveStateDeps {
  db: OffchainDb;
  pool: pg.Pool;
  viewsSchema: string;
  chain: ChatChain | undefined;
  logger?: Logger;
}

async function attempt<T>(what: string, logger: Logger | undefined, work: () => Promise<T>): Promise<T | undefined> {
  try {
    return await work();
  } catch (error) {
    logger?.debug({ err: error, what }, "live state unavailable");
    return undefined;
  }
}

function humanDuration(seconds: number): string {
  if (seconds % 86_400 === 0 && seconds >= 86_400 * 3) return `${seconds / 86_400} days`;
  if (seconds % 3_600 === 0) return `${seconds / 3_600} hour${seconds === 3_600 ? "" : "s"}`;
  if (seconds % 60 === 0) return `${seconds / 60} minutes`;
  return `${seconds} seconds`;
}
export { humanDuration };

/**
 * The live figures the assistant may quote, gathered best-effort: each part is left out when
 * its source (indexer views, chain RPC) is unavailable. Wallet emissions are scanned only in
 * `emissions` mode (they cost chain reads).
 */
export async function gatherLiveState(deps: LiveStateDeps, wallet: string, mode: ChatMode): Promise<LiveState> {
  const { db, logger } = deps;
  const indexed = (await attempt("readiness", logger, () => chainReady(deps.pool, deps.viewsSchema))) === true;
  const state: LiveState = {};

  const [protocolRow, podTotals, subnets, pods, currentEpoch] = await Promise.all([
    indexed ? attempt("protocol", logger, () => findProtocol(db)) : undefined,
    indexed ? attempt("pod count", logger, () => countPods(db)) : undefined,
    indexed ? attempt("datanets", logger, () => listSubnets(db)) : undefined,
    indexed ? attempt("wallet pods", logger, async () => (await walletPods(db, wallet)).map((row) => row.id)) : undefined,
    deps.chain ? attempt("current epoch", logger, () => deps.chain!.currentEpoch()) : undefined,
  ]);

  let epochLength = protocolRow?.epochLength ?? undefined;
  if (epochLength === undefined && deps.chain) epochLength = await attempt("epoch length", logger, () => deps.chain!.epochLength());
  if (epochLength !== undefined) {
    let endsAt: string | null = null;
    if (currentEpoch !== undefined) {
      const genesis = protocolRow?.epochGenesis;
      const end =
        genesis !== undefined && genesis !== null
          ? genesis + currentEpoch * epochLength
          : deps.chain
            ? await attempt("epoch end", logger, () => deps.chain!.epochEnd(currentEpoch))
            : undefined;
      if (end !== undefined) endsAt = new Date(Number(end) * 1000).toISOString();
    }
    state.stats = {
      epochLengthSeconds: Number(epochLength),
      currentEpoch: currentEpoch === undefined ? null : Number(currentEpoch),
      currentEpochEndsAt: endsAt,
      totalPods: podTotals ?? null,
      totalActiveSubnets: subnets?.length ?? null,
      subnetCreationFeeCORE:
        protocolRow?.subnetCreationFee !== undefined && protocolRow?.subnetCreationFee !== null
          ? toTokenString(protocolRow.subnetCreationFee)
          : null,
    };
  }
  if (subnets) state.subnets = subnets;
  if (pods) state.pods = pods.map(String);

  if (mode === "emissions" && pods && deps.chain) {
    const source = createEmissionsSource(db, deps.chain);
    const scans = await attempt("wallet emissions", logger, () =>
      Promise.all(pods.slice(0, MAX_PODS_SCANNED).map((podId) => scanEmissions(source, podId))),
    );
    if (scans) {
      const perPod = scans.map((scan) => ({
        podId: scan.podId.toString(),
        claimableCORE: scan.totalDue.core,
        claimablePrimary: scan.totalDue.primary,
        dueEpochs: scan.due.map((e) => e.epoch.toString()),
        moreEpochsAvailable: scan.moreEpochsAvailable,
      }));
      state.emissions = {
        totalCORE: perPod.reduce((sum, p) => sum + p.claimableCORE, 0n),
        totalPrimary: perPod.reduce((sum, p) => sum + p.claimablePrimary, 0n),
        pods: perPod,
      };
    }
  }
  return state;
}

/** Live state as searchable records; `sources` name them like documentation passages. */
export function liveRecords(state: LiveState): Passage[] {
  const records: Passage[] = [];
  const { stats } = state;
  if (stats) {
    records.push({
      id: "live:stats#epoch",
      source: "live:stats",
      title: "Network stats (/stats)",
      section: "epochLengthSeconds",
      text:
        `Epoch length: an epoch lasts ${humanDuration(stats.epochLengthSeconds)} (${stats.epochLengthSeconds} seconds, epochLengthSeconds). ` +
        (stats.currentEpoch !== null ? `The current epoch is ${stats.currentEpoch}` : "") +
        (stats.currentEpochEndsAt ? `, ending at ${stats.currentEpochEndsAt}.` : "."),
    });
    records.push({
      id: "live:stats#totals",
      source: "live:stats",
      title: "Network stats (/stats)",
      section: "totals",
      text: `Network totals: ${stats.totalPods ?? "unknown"} pods minted, ${stats.totalActiveSubnets ?? "unknown"} active datanets (subnets).`,
    });
  }
  for (const d of state.subnets ?? []) {
    records.push({
      id: `live:datanets#${d.id}`,
      source: "live:datanets",
      title: d.name,
      section: `Datanet ${d.id}`,
      text:
        `Datanet (subnet) ${d.id} "${d.name}": ${d.description || "no description"}. Publishing fee ${toTokenString(d.publishingFeeCORE)} CORE; ` +
        `emissions ${toTokenString(d.emissionsPerEpochCORE)} CORE per epoch; ${d.podCount} pods.`,
    });
  }
  if (state.pods) {
    records.push({
      id: "live:pods#wallet",
      source: "live:pods",
      title: "Your pods",
      section: "owned pods",
      text: state.pods.length > 0 ? `Your wallet owns ${state.pods.length} pods: ${state.pods.map((p) => `#${p}`).join(", ")}.` : "Your wallet owns no pods.",
    });
  }
  if (state.emissions) {
    records.push({
      id: "live:emissions#wallet",
      source: "live:emissions",
      title: "Your claimable emissions",
      section: "totalClaimable",
      text: `Claimable emissions (rewards) for your pods: ${toTokenString(state.emissions.totalCORE)} CORE in total.`,
    });
  }
  return records;
}
