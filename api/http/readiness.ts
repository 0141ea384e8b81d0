import { createRoute, z, type OpenAPIHono } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import type pg from "pg";
import type { Logger } from "pino";
import { onPrimary, readReplicas, type ReplicaStatus } from "../db/read-replicas";
import { serviceUnavailable } from "./errors";
import { indexerLagProbe, type IndexerLagProbe } from "./indexer-lag";
import { createProgressTracker, describeProgress, samplePonder, type IndexerProgress } from "../../ops/indexer-progress";
import { indexerRestarts, IndexerRestartsSchema } from "./indexer-restarts";
import { observeIndexerLag, observeIndexerProgress, observePool } from "./metrics";
import { jsonContent } from "./openapi";
import type { AppEnv } from "./types";

const READY_CACHE_MS = 5_000;
/** What a chain route's 503 tells the client to wait before it asks again while the indexer is not ready. */
export const INDEXER_RETRY_AFTER_SECONDS = 10;
const PONDER_STATUS_TIMEOUT_MS = 1_000;

interface ReadinessCheck {
  checkedAt: number;
  ready: Promise<boolean>;
}

const checks = new WeakMap<pg.Pool, Map<string, ReadinessCheck>>();

// The catalogs, not information_schema.tables: that view checks privileges on every relation of
// the database, the indexer's short-lived ones included.
async function viewsSchemaHasTables(pool: pg.Pool, viewsSchema: string): Promise<boolean> {
  const result = await pool.query<{ ready: boolean }>(
    `SELECT EXISTS (
       SELECT 1 FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = $1 AND c.relkind IN ('r', 'v', 'm', 'p', 'f')
     ) AS ready`,
    [viewsSchema],
  );
  return result.rows[0]?.ready === true;
}

/**
 * True once Ponder has published its views (the views schema exists and holds
 * tables or views). A positive answer is cached for a few seconds; a negative
 * one is not, so readiness shows as soon as the indexer gets there.
 */
export async function chainReady(pool: pg.Pool, viewsSchema: string): Promise<boolean> {
  let perSchema = checks.get(pool);
  if (!perSchema) checks.set(pool, (perSchema = new Map()));
  const cached = perSchema.get(viewsSchema);
  if (cached && Date.now() - cached.checkedAt < READY_CACHE_MS) return cached.ready;

  const check: ReadinessCheck = { checkedAt: Date.now(), ready: viewsSchemaHasTables(pool, viewsSchema) };
  perSchema.set(viewsSchema, check);
  try {
    const ready = await check.ready;
    if (!ready) perSchema.delete(viewsSchema);
    return ready;
  } catch (error) {
    perSchema.delete(viewsSchema);
    throw error;
  }
}

/** Answers 503 `{"error":"Indexer not ready"}` with `Retry-After` on routes that read chain state before Ponder's views exist. */
export async function assertChainReady(pool: pg.Pool, viewsSchema: string, logger?: Logger): Promise<void> {
  let ready: boolean;
  try {
    ready = await chainReady(pool, viewsSchema);
  } catch (error) {
    logger?.warn({ err: error }, "readiness check failed: database unavailable");
    throw serviceUnavailable("Database unavailable");
  }
  if (!ready) throw serviceUnavailable("Indexer not ready", INDEXER_RETRY_AFTER_SECONDS);
}

/** `assertChainReady` as a middleware for a given pool (the surfaces use `chainReady` from http/middleware.ts). */
export function requireChain(pool: pg.Pool, viewsSchema: string): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    await assertChainReady(pool, viewsSchema, c.get("logger"));
    await next();
  };
}

/** Ponder's own `/status` (per-chain progress), or undefined when it cannot be had within a second. */
async function fetchPonderStatus(ponderUrl: string): Promise<unknown> {
  try {
    const response = await fetch(`${ponderUrl}/status`, { signal: AbortSignal.timeout(PONDER_STATUS_TIMEOUT_MS) });
    if (!response.ok) return undefined;
    return await response.json();
  } catch {
    return undefined;
  }
}

const PROGRESS_CACHE_MS = 1_000;
const progressProbes = new Map<string, () => Promise<IndexerProgress | undefined>>();

/**
 * The indexer's progress at `ponderUrl` (blocks/s, events/s, ETA), one tracker per URL for the
 * process, sampled at most once a second by whoever asks (/ready, /metrics); undefined while
 * Ponder does not answer.
 */
function indexerProgressProbe(ponderUrl: string, chainHead: () => Promise<number | null>): () => Promise<IndexerProgress | undefined> {
  const existing = progressProbes.get(ponderUrl);
  if (existing) return existing;
  const tracker = createProgressTracker();
  let cached: { at: number; progress: Promise<IndexerProgress | undefined> } | undefined;
  const probe = () => {
    if (cached && Date.now() - cached.at < PROGRESS_CACHE_MS) return cached.progress;
    const progress = Promise.all([samplePonder(ponderUrl, PONDER_STATUS_TIMEOUT_MS), chainHead().catch(() => null)]).then(
      ([sample, head]) => tracker.update(sample, head),
      () => undefined,
    );
    cached = { at: Date.now(), progress };
    return progress;
  };
  progressProbes.set(ponderUrl, probe);
  return probe;
}

export const IndexerProgressSchema = z
  .object({
    indexedBlock: z.number().int().nullable(),
    targetBlock: z.number().int().nullable(),
    blocksBehind: z.number().int().nullable(),
    blocksPerSecond: z.number().nullable(),
    eventsPerSecond: z.number().nullable(),
    etaSeconds: z.number().int().nullable(),
    eventsIndexed: z.number().int(),
    rpcErrors: z.number().int(),
    realtime: z.boolean(),
  })
  .openapi("IndexerProgress", {
    description:
      "The indexer's progress from Ponder's /metrics and /status: rates over the last minute, the ETA to the chain head at that rate (null while unknown), its failed RPC requests since it started",
    example: {
      indexedBlock: 1_100_000,
      targetBlock: 1_204_514,
      blocksBehind: 104_514,
      blocksPerSecond: 850.5,
      eventsPerSecond: 120.2,
      etaSeconds: 123,
      eventsIndexed: 48_210,
      rpcErrors: 0,
      realtime: false,
    },
  });

export const INDEXER_LAG_EXAMPLE = {
  indexedBlock: 1_204_512,
  chainBlock: 1_204_514,
  blocksBehind: 2,
  secondsBehind: 4,
  maxBlocks: 10,
  maxSeconds: 60,
  withinBounds: true,
};

export const IndexerLagSchema = z
  .object({
    indexedBlock: z.number().int().nullable(),
    chainBlock: z.number().int().nullable(),
    blocksBehind: z.number().int().nullable(),
    secondsBehind: z.number().int().nullable(),
    maxBlocks: z.number().int(),
    maxSeconds: z.number().int(),
    withinBounds: z.boolean(),
    reason: z.string().optional(),
  })
  .openapi("IndexerLag", {
    example: INDEXER_LAG_EXAMPLE,
    description:
      "The indexed head (Ponder's checkpoint in the views schema) against the chain head; bounds from INDEXER_MAX_LAG_BLOCKS / INDEXER_MAX_LAG_SECONDS",
  });

const ReadinessSchema = z
  .object({
    ready: z.boolean(),
    indexer: z.object({
      viewsSchema: z.string(),
      ready: z.boolean(),
      status: z.unknown().optional().openapi({ description: "Ponder's /status, when reachable" }),
      progress: IndexerProgressSchema.optional().openapi({ description: "While not ready and Ponder answers: how far the backfill is and when it should be done" }),
      lag: IndexerLagSchema.optional(),
      restarts: IndexerRestartsSchema.optional().openapi({ description: "Shown once the indexer has been restarted" }),
    }),
    database: z.enum(["ok", "unavailable"]),
    reason: z.string().optional().openapi({ description: "Why the service is not ready (absent when ready)" }),
  })
  .openapi("Readiness", {
    example: {
      ready: true,
      indexer: {
        viewsSchema: "chain",
        ready: true,
        status: { base: { id: 8453, block: { number: 1_204_512, timestamp: 1_767_225_600 } } },
        lag: INDEXER_LAG_EXAMPLE,
      },
      database: "ok",
    },
  });

/** The route of `GET /ready`; `surface` makes its operationId unique across the three documents. */
const readyRoute = (surface: string) =>
  createRoute({
    operationId: `get${surface}Readiness`,
    method: "get",
    path: "/ready",
    tags: ["Operations"],
    summary: "Whether the service can answer requests that need chain state",
    responses: {
      200: jsonContent(ReadinessSchema, "Ready"),
      503: jsonContent(
        ReadinessSchema,
        "Not ready (indexer views missing, behind the chain head or in a crash loop, or database unreachable)",
      ),
    },
  });

/**
 * `/ready`'s report of the read replicas (DATABASE_READ_URL), one entry each:
 * `127.0.0.1:5433/app;state=up;lag_ms=0`, state up, lagging or down (a header, not a field: the
 * documented body stays as it is).
 */
export const READ_REPLICAS_HEADER = "X-Read-Replicas";

export function describeReplicas(replicas: ReplicaStatus[]): string {
  return replicas
    .map((r) => `${r.name};state=${r.state}${r.lagMs === null ? "" : `;lag_ms=${r.lagMs}`}${r.error ? `;error="${r.error.replace(/["\\\r\n]/g, " ").slice(0, 120)}"` : ""}`)
    .join(", ");
}

export interface ReadinessOptions {
  /** "Platform", "Chat" or "Eval": names the operation (`getPlatformReadiness`). */
  surface: string;
  pool: pg.Pool;
  viewsSchema: string;
  ponderUrl: string;
  /** Default: the process's probe of this pool and views schema. */
  indexerLag?: IndexerLagProbe;
  /** The process is stopping (SHUTDOWN_DRAIN_MS): not ready, whatever else holds. */
  draining?: () => boolean;
}

/**
 * `GET /ready`: 200 when the database answers, the indexer's views exist, the indexer is within
 * its lag bounds of the chain head and not in a crash loop; else 503 with `reason`. Same body
 * shape both ways.
 */
export function registerReadiness<E extends AppEnv>(app: OpenAPIHono<E>, options: ReadinessOptions): void {
  const { surface, pool, viewsSchema, ponderUrl } = options;
  const lagProbe = options.indexerLag ?? indexerLagProbe(pool, viewsSchema);
  const progressProbe = indexerProgressProbe(ponderUrl, async () => (await lagProbe.measure()).chainBlock);
  // what readiness checks is also what /metrics reports: the pool, the same lag and progress probes
  observePool(pool);
  observeIndexerLag(() => lagProbe.measure());
  observeIndexerProgress(progressProbe);
  app.openapi(readyRoute(surface), async (c) => {
    const statusPromise = fetchPonderStatus(ponderUrl);
    const progressPromise = progressProbe();
    let database: "ok" | "unavailable" = "ok";
    let indexerReady = false;
    let lag: Awaited<ReturnType<IndexerLagProbe["measure"]>> | undefined;
    try {
      // the primary's state, not a read replica's (a replica is reported apart, below)
      await onPrimary(async () => {
        indexerReady = await chainReady(pool, viewsSchema);
        if (indexerReady) lag = await lagProbe.measure();
      });
    } catch {
      database = "unavailable";
    }
    const [status, progress] = await Promise.all([statusPromise, progressPromise]);
    const lagging = lag !== undefined && !lag.withinBounds;
    const restarts = indexerRestarts();
    const draining = options.draining?.() === true;
    const ready = database === "ok" && indexerReady && !lagging && !restarts.crashLoop && !draining;
    const backfill = progress === undefined ? "" : `; backfill at ${describeProgress(progress)}`;
    // the crash loop first: it is why the views are missing or the lag grows
    const reason = draining
      ? "Shutting down"
      : database === "unavailable"
        ? "Database unavailable"
        : restarts.crashLoop
          ? restarts.reason
          : !indexerReady
            ? `Indexer not ready: its views are not published yet${backfill}`
            : lagging
              ? lag?.reason
              : undefined;
    const body = {
      ready,
      indexer: {
        viewsSchema,
        ready: indexerReady && !lagging && !restarts.crashLoop,
        ...(status === undefined ? {} : { status }),
        ...(ready || progress === undefined ? {} : { progress }),
        // Shown once there is something to compare: Ponder's first checkpoint.
        ...(lag === undefined || lag.indexedBlock === null ? {} : { lag }),
        ...(restarts.total === 0 ? {} : { restarts }),
      },
      database,
      ...(reason === undefined ? {} : { reason }),
    };
    // optional capacity: a replica lagging or down never makes the process unready
    const replicas = readReplicas();
    if (replicas) c.header(READ_REPLICAS_HEADER, describeReplicas(replicas.status()));
    if (ready) return c.json(body, 200);
    c.header("Retry-After", String(INDEXER_RETRY_AFTER_SECONDS));
    return c.json(body, 503);
  });
}

/**
 * The indexer's lag (null when it cannot be measured) and its restarts, for liveness answers:
 * never throws.
 */
export async function indexerLagForHealth(
  pool: pg.Pool,
  viewsSchema: string,
): Promise<{ lag: IndexerLagBody | null; restarts: IndexerRestartsBody }> {
  const restarts = indexerRestarts();
  try {
    if (!(await chainReady(pool, viewsSchema))) return { lag: null, restarts };
    return { lag: await indexerLagProbe(pool, viewsSchema).measure(), restarts };
  } catch {
    return { lag: null, restarts };
  }
}

type IndexerLagBody = z.infer<typeof IndexerLagSchema>;
type IndexerRestartsBody = z.infer<typeof IndexerRestartsSchema>;

export const HealthIndexerSchema = z.object({ lag: IndexerLagSchema.nullable(), restarts: IndexerRestartsSchema });

/** The body of `GET /health`, as the OpenAPI component `componentName`, with `service` in its example. */
export function healthSchema(componentName: string, service: string) {
  return z
    .object({
      status: z.literal("ok"),
      service: z.string(),
      started: z.string().openapi({ format: "date-time" }),
      uptime: z.number().openapi({ description: "Seconds since the service started" }),
      indexer: HealthIndexerSchema,
    })
    .openapi(componentName, {
      example: {
        status: "ok",
        service,
        started: "2026-01-01T00:00:00.000Z",
        uptime: 3600,
        indexer: {
          lag: INDEXER_LAG_EXAMPLE,
          restarts: { total: 0, recent: 0, windowSeconds: 900, lastCause: null, lastAt: null, crashLoop: false },
        },
      },
    });
}

const GenericHealthSchema = healthSchema("ServiceHealth", "platform-api");

/** `surface` makes the operationId unique across the three documents. */
const genericHealthRoute = (surface: string) =>
  createRoute({
    operationId: `get${surface}Health`,
    method: "get",
    path: "/health",
    tags: ["Operations"],
    summary: "Liveness: 200 while the process serves, with the indexer's lag",
    responses: { 200: jsonContent(GenericHealthSchema, "The service is up") },
  });

/** `GET /health`: always 200 while the process serves; shows the indexer's lag (liveness, not readiness). */
export function registerHealth<E extends AppEnv>(
  app: OpenAPIHono<E>,
  {
    surface,
    service,
    pool,
    viewsSchema,
    startedAt = new Date(),
  }: { surface: string; service: string; pool: pg.Pool; viewsSchema: string; startedAt?: Date },
): void {
  app.openapi(genericHealthRoute(surface), async (c) =>
    c.json(
      {
        status: "ok" as const,
        service,
        started: startedAt.toISOString(),
        uptime: Math.floor((Date.now() - startedAt.getTime()) / 1000),
        indexer: await indexerLagForHealth(pool, viewsSchema),
      },
      200,
    ),
  );
}
