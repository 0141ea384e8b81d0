/**
 * The indexer's progress as an operator reads it: derived from Ponder's own `/metrics` (events
 * indexed, blocks synced, RPC requests and failures) and `/status` (the indexed block), sampled
 * over time into blocks/s, events/s and an ETA. The launcher logs it while the backfill runs; the
 * API shows it in `/ready` and its `/metrics`.
 */

const TIMEOUT_MS = 2_000;
/** Rates are measured over this window: long enough to smooth Ponder's batches, short enough to follow a change. */
const RATE_WINDOW_MS = 60_000;

export interface PonderSample {
  /** When the sample was taken (ms). */
  at: number;
  /** Newest block whose events are indexed (Ponder's `/status`); null before its first checkpoint. */
  indexedBlock: number | null;
  /** Newest block Ponder has synced from the RPC (`ponder_sync_block`). */
  syncedBlock: number | null;
  /** Events indexed since the process started (`ponder_indexing_completed_events`, all events summed). */
  events: number;
  /** Failed RPC requests since the process started (`ponder_rpc_request_error_total`). */
  rpcErrors: number;
  /** 1 once the backfill is done and Ponder follows the head (`ponder_sync_is_realtime`). */
  realtime: boolean;
}

export interface IndexerProgress {
  indexedBlock: number | null;
  /** The block the backfill must reach: the chain head when known, else the synced block. */
  targetBlock: number | null;
  blocksBehind: number | null;
  /** Over the last minute; null until two samples apart in time. */
  blocksPerSecond: number | null;
  eventsPerSecond: number | null;
  /** Seconds until `targetBlock` at the current rate; null while the rate is unknown or zero. */
  etaSeconds: number | null;
  eventsIndexed: number;
  rpcErrors: number;
  realtime: boolean;
}

type Series = { labels: Record<string, string>; value: number }[];

/** The samples of a Prometheus text exposition, by metric name. */
export function parsePrometheusText(text: string): Map<string, Series> {
  const metrics = new Map<string, Series>();
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/.exec(line);
    if (!match) continue;
    const [, name, labelText, valueText] = match;
    const labels: Record<string, string> = {};
    for (const [, key, value] of (labelText ?? "").matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) {
      labels[key!] = value!;
    }
    const value = Number(valueText);
    if (!Number.isFinite(value)) continue;
    const series = metrics.get(name!) ?? [];
    series.push({ labels, value });
    metrics.set(name!, series);
  }
  return metrics;
}

const sum = (series: Series | undefined) => (series ?? []).reduce((total, { value }) => total + value, 0);
const min = (series: Series | undefined) => (series && series.length > 0 ? Math.min(...series.map(({ value }) => value)) : null);

/** One sample of the indexer at `ponderUrl`; throws when it does not answer. */
export async function samplePonder(ponderUrl: string, timeoutMs = TIMEOUT_MS): Promise<PonderSample> {
  const base = ponderUrl.replace(/\/+$/, "");
  const [metricsResponse, statusResponse] = await Promise.all([
    fetch(`${base}/metrics`, { signal: AbortSignal.timeout(timeoutMs) }),
    fetch(`${base}/status`, { signal: AbortSignal.timeout(timeoutMs) }).catch(() => undefined),
  ]);
  if (!metricsResponse.ok) throw new Error(`GET ${base}/metrics: ${metricsResponse.status}`);
  const metrics = parsePrometheusText(await metricsResponse.text());
  let indexedBlock: number | null = null;
  if (statusResponse?.ok) {
    const chains = Object.values((await statusResponse.json()) as Record<string, { block?: { number?: number } }>);
    const blocks = chains.map((chain) => chain.block?.number).filter((n): n is number => typeof n === "number");
    if (blocks.length > 0) indexedBlock = Math.min(...blocks);
  }
  const realtime = min(metrics.get("ponder_sync_is_realtime"));
  return {
    at: Date.now(),
    indexedBlock,
    syncedBlock: min(metrics.get("ponder_sync_block")),
    events: sum(metrics.get("ponder_indexing_completed_events")),
    rpcErrors: sum(metrics.get("ponder_rpc_request_error_total")),
    realtime: realtime === 1,
  };
}

export interface ProgressTracker {
  /** Adds a sample and derives the progress from the samples of the last minute. */
  update(sample: PonderSample, chainHead?: number | null): IndexerProgress;
  /** The last progress derived, if any. */
  readonly last: IndexerProgress | undefined;
}

export function createProgressTracker(windowMs = RATE_WINDOW_MS): ProgressTracker {
  const samples: PonderSample[] = [];
  let last: IndexerProgress | undefined;
  return {
    get last() {
      return last;
    },
    update(sample, chainHead) {
      // a restarted indexer counts its events from zero again: its old samples say nothing of its rate
      if (samples.length > 0 && sample.events < samples[samples.length - 1]!.events) samples.length = 0;
      samples.push(sample);
      while (samples.length > 2 && sample.at - samples[0]!.at > windowMs) samples.shift();
      const first = samples[0]!;
      const seconds = (sample.at - first.at) / 1000;
      const targetBlock = chainHead ?? sample.syncedBlock;
      const blocksBehind =
        targetBlock !== null && sample.indexedBlock !== null ? Math.max(0, targetBlock - sample.indexedBlock) : null;
      let blocksPerSecond: number | null = null;
      let eventsPerSecond: number | null = null;
      if (seconds > 0) {
        eventsPerSecond = Math.max(0, (sample.events - first.events) / seconds);
        if (sample.indexedBlock !== null && first.indexedBlock !== null) {
          blocksPerSecond = Math.max(0, (sample.indexedBlock - first.indexedBlock) / seconds);
        }
      }
      const etaSeconds =
        blocksBehind === 0
          ? 0
          : blocksBehind !== null && blocksPerSecond !== null && blocksPerSecond > 0
            ? Math.ceil(blocksBehind / blocksPerSecond)
            : null;
      last = {
        indexedBlock: sample.indexedBlock,
        targetBlock,
        blocksBehind,
        blocksPerSecond: blocksPerSecond === null ? null : Math.round(blocksPerSecond * 10) / 10,
        eventsPerSecond: eventsPerSecond === null ? null : Math.round(eventsPerSecond * 10) / 10,
        etaSeconds,
        eventsIndexed: sample.events,
        rpcErrors: sample.rpcErrors,
        realtime: sample.realtime,
      };
      return last;
    },
  };
}

function duration(seconds: number): string {
  if (seconds < 60) return `${seconds} s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
  return `${Math.floor(seconds / 3600)} h ${Math.floor((seconds % 3600) / 60)} min`;
}

/** One log line: `block 1200 of 5000, 150.2 blocks/s, 40.1 events/s, ETA 25 s, 0 RPC errors`. */
export function describeProgress(progress: IndexerProgress): string {
  const parts = [
    `block ${progress.indexedBlock ?? "-"} of ${progress.targetBlock ?? "?"}`,
    `${progress.blocksPerSecond ?? "?"} blocks/s`,
    `${progress.eventsPerSecond ?? "?"} events/s`,
    `ETA ${progress.etaSeconds === null ? "unknown" : duration(progress.etaSeconds)}`,
    `${progress.rpcErrors} RPC errors`,
  ];
  return parts.join(", ");
}
