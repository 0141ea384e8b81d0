import { createRoute, z, type OpenAPIHono } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import type pg from "pg";
import { serviceUnavailable } from "./errors";
import { jsonContent } from "./openapi";
import type { AppEnv } from "./types";

const READY_CACHE_MS = 5_000;
const PONDER_STATUS_TIMEOUT_MS = 1_000;

interface ReadinessCheck {
  checkedAt: number;
  ready: Promise<boolean>;
}

const checks = new WeakMap<pg.Pool, Map<string, ReadinessCheck>>();

async function viewsSchemaHasTables(pool: pg.Pool, viewsSchema: string): Promise<boolean> {
  const result = await pool.query<{ ready: boolean }>(
    "SELECT EXISTS (SELECT 1 FROM information_schema.tables WHERE table_schema = $1) AS ready",
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

/** Answers 503 `{"error":"Indexer not ready"}` on routes that read chain state before Ponder's views exist. */
export function requireChain(pool: pg.Pool, viewsSchema: string): MiddlewareHandler<AppEnv> {
  return async (_c, next) => {
    let ready: boolean;
    try {
      ready = await chainReady(pool, viewsSchema);
    } catch {
      throw serviceUnavailable("Database unavailable");
    }
    if (!ready) throw serviceUnavailable("Indexer not ready");
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

const ReadinessSchema = z
  .object({
    ready: z.boolean(),
    indexer: z.object({
      viewsSchema: z.string(),
      ready: z.boolean(),
      status: z.unknown().optional().openapi({ description: "Ponder's /status, when reachable" }),
    }),
    database: z.enum(["ok", "unavailable"]),
  })
  .openapi("Readiness");

const readyRoute = createRoute({
  method: "get",
  path: "/ready",
  tags: ["Operations"],
  summary: "Whether the service can answer requests that need chain state",
  responses: {
    200: jsonContent(ReadinessSchema, "Ready"),
    503: jsonContent(ReadinessSchema, "Not ready (indexer views missing or database unreachable)"),
  },
});

export interface ReadinessOptions {
  pool: pg.Pool;
  viewsSchema: string;
  ponderUrl: string;
}

/** `GET /ready`: 200 when the database answers and the indexer's views exist, else 503; same body shape both ways. */
export function registerReadiness(app: OpenAPIHono<AppEnv>, { pool, viewsSchema, ponderUrl }: ReadinessOptions): void {
  app.openapi(readyRoute, async (c) => {
    const statusPromise = fetchPonderStatus(ponderUrl);
    let database: "ok" | "unavailable" = "ok";
    let indexerReady = false;
    try {
      indexerReady = await chainReady(pool, viewsSchema);
    } catch {
      database = "unavailable";
    }
    const status = await statusPromise;
    const ready = database === "ok" && indexerReady;
    const body = {
      ready,
      indexer: { viewsSchema, ready: indexerReady, ...(status === undefined ? {} : { status }) },
      database,
    };
    return ready ? c.json(body, 200) : c.json(body, 503);
  });
}
