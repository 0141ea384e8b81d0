import { parseEnv, processEnv } from "../env";
import type pg from "pg";
import type { PublicClient } from "viem";
import { createChainClient } from "../../chain/client";
import { readCheckpoint } from "../../ops/views-publish";
import { deploymentsFile, readDeployment } from "../../chain/deployments";
import { isLoopbackUrl, primaryRpcUrl } from "../../chain/protocol-config";

/**
 * How far the indexer is behind the chain: the newest block in Ponder's checkpoint (the views
 * schema's `_ponder_checkpoint`, so every API replica reads the same one) against the chain head
 * from the API's own RPC client (the process's, `useChainClientForIndexerLag`; else one made from
 * the environment's RPC). Computed at most once a second per process.
 */

export interface IndexerLagSettings {
  /** Not ready beyond this many blocks behind (INDEXER_MAX_LAG_BLOCKS, default 10). */
  maxBlocks: number;
  /** Not ready beyond this many seconds of chain time behind (INDEXER_MAX_LAG_SECONDS, default 60). */
  maxSeconds: number;
}

export interface IndexerLag {
  /** Newest block the indexer has committed (null before its first checkpoint). */
  indexedBlock: number | null;
  /** The chain head as the API's RPC reports it (null when the RPC cannot be reached). */
  chainBlock: number | null;
  blocksBehind: number | null;
  secondsBehind: number | null;
  maxBlocks: number;
  maxSeconds: number;
  /** False when the lag exceeds a bound; true when within both, or when it cannot be measured. */
  withinBounds: boolean;
  /** Why the lag is out of bounds (absent otherwise). */
  reason?: string;
}

export interface ChainHead {
  number: bigint;
  timestamp: bigint;
}

export type ChainHeadSource = () => Promise<ChainHead | null>;

const CACHE_MS = 1_000;
const CHAIN_HEAD_TIMEOUT_MS = 2_000;

export function loadIndexerLagSettings(env: NodeJS.ProcessEnv = processEnv()): IndexerLagSettings {
  const e = parseEnv(env);
  return { maxBlocks: e.INDEXER_MAX_LAG_BLOCKS, maxSeconds: e.INDEXER_MAX_LAG_SECONDS };
}

/** The chain's RPC as the rest of the API finds it (PONDER_RPC_URL_8453, else the deployments file). */
export function chainRpcUrl(env: NodeJS.ProcessEnv = processEnv()): string | undefined {
  try {
    return primaryRpcUrl(env) ?? readDeployment(deploymentsFile(env))?.rpcUrl;
  } catch {
    return undefined;
  }
}

/** The head block of `client`, or null when it does not answer within 2 s. */
export function chainHeadFrom(client: PublicClient): ChainHeadSource {
  return async () => {
    try {
      const block = await Promise.race([
        client.getBlock({ blockTag: "latest" }),
        new Promise<never>((_, reject) => setTimeout(() => reject(new Error("timeout")), CHAIN_HEAD_TIMEOUT_MS).unref()),
      ]);
      return { number: block.number, timestamp: block.timestamp };
    } catch {
      return null;
    }
  };
}

let defaultSource: { rpcUrl: string; source: ChainHeadSource } | undefined;

/** The chain head from the environment's RPC (one client per process), or null without one: for a pool whose process gave no client. */
export const chainHeadFromEnvironment: ChainHeadSource = async () => {
  const rpcUrl = chainRpcUrl();
  if (!rpcUrl) return null;
  if (defaultSource?.rpcUrl !== rpcUrl) {
    defaultSource = { rpcUrl, source: chainHeadFrom(createChainClient({ rpcUrl, local: isLoopbackUrl(rpcUrl) })) };
  }
  return defaultSource.source();
};

/** The indexed head from the views schema; null before Ponder has a checkpoint. Throws when the database fails. */
export function indexedHead(pool: pg.Pool, viewsSchema: string): Promise<{ timestamp: number; block: number } | null> {
  return readCheckpoint(pool, viewsSchema);
}

export interface IndexerLagProbeOptions {
  pool: pg.Pool;
  viewsSchema: string;
  chainHead?: ChainHeadSource;
  settings?: IndexerLagSettings;
  cacheMs?: number;
}

export interface IndexerLagProbe {
  /** The lag, measured at most once per `cacheMs`; concurrent callers share one measurement. */
  measure(): Promise<IndexerLag>;
}

export function createIndexerLagProbe(options: IndexerLagProbeOptions): IndexerLagProbe {
  const settings = options.settings ?? loadIndexerLagSettings();
  const chainHead = options.chainHead ?? chainHeadFromEnvironment;
  const cacheMs = options.cacheMs ?? CACHE_MS;
  let cached: { at: number; lag: Promise<IndexerLag> } | undefined;

  const measureNow = async (): Promise<IndexerLag> => {
    const [indexed, head] = await Promise.all([indexedHead(options.pool, options.viewsSchema), chainHead()]);
    const base = { maxBlocks: settings.maxBlocks, maxSeconds: settings.maxSeconds };
    if (!indexed || !head) {
      // No checkpoint yet while the chain answers: the indexer cannot be shown to be near the head,
      // so it is not (a reading taken just before the views appear must not count as "caught up").
      // An unanswering chain is not held against the indexer.
      const noCheckpoint = !indexed && head !== null;
      return {
        indexedBlock: indexed?.block ?? null,
        chainBlock: head ? Number(head.number) : null,
        blocksBehind: null,
        secondsBehind: null,
        ...base,
        withinBounds: !noCheckpoint,
        ...(noCheckpoint ? { reason: "Indexer has not recorded a checkpoint yet" } : {}),
      };
    }
    const blocksBehind = Math.max(0, Number(head.number) - indexed.block);
    const secondsBehind = Math.max(0, Number(head.timestamp) - indexed.timestamp);
    const lag: IndexerLag = {
      indexedBlock: indexed.block,
      chainBlock: Number(head.number),
      blocksBehind,
      secondsBehind,
      ...base,
      withinBounds: blocksBehind <= settings.maxBlocks && secondsBehind <= settings.maxSeconds,
    };
    if (!lag.withinBounds) {
      lag.reason =
        `Indexer behind the chain head: block ${indexed.block} of ${head.number} ` +
        `(${blocksBehind} blocks, ${secondsBehind} s; at most ${settings.maxBlocks} blocks and ${settings.maxSeconds} s)`;
    }
    return lag;
  };

  return {
    measure() {
      const now = Date.now();
      if (cached && now - cached.at < cacheMs) return cached.lag;
      const lag = measureNow();
      cached = { at: now, lag };
      lag.catch(() => {
        if (cached?.lag === lag) cached = undefined;
      });
      return lag;
    },
  };
}

const probes = new WeakMap<pg.Pool, Map<string, IndexerLagProbe>>();
const chainHeads = new WeakMap<pg.Pool, ChainHeadSource>();

/**
 * The probes of `pool` read the chain head from `client`, the process's chain client (set where
 * the process's dependencies are assembled: api/server.ts), instead of a client of their own.
 */
export function useChainClientForIndexerLag(pool: pg.Pool, client: PublicClient): void {
  chainHeads.set(pool, chainHeadFrom(client));
}

/** One probe per pool and views schema in this process, shared by the surfaces. */
export function indexerLagProbe(pool: pg.Pool, viewsSchema: string): IndexerLagProbe {
  let perSchema = probes.get(pool);
  if (!perSchema) probes.set(pool, (perSchema = new Map()));
  let probe = perSchema.get(viewsSchema);
  if (!probe) {
    const chainHead: ChainHeadSource = () => (chainHeads.get(pool) ?? chainHeadFromEnvironment)();
    perSchema.set(viewsSchema, (probe = createIndexerLagProbe({ pool, viewsSchema, chainHead })));
  }
  return probe;
}
