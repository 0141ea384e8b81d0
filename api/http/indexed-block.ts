/**
 * Answers that name their block (issue 39): every answer of a route that reads chain tables
 * carries `X-Indexed-Block` (the block of the indexer's checkpoint in the views schema, what the
 * answer reflects) and `X-Indexed-Block-Timestamp`; `?minBlock=N` waits up to 2 s for the indexer
 * to reach block N and answers 409 when it has not, so a client that has just sent a transaction
 * reads its own effect, or learns that this replica is behind.
 */
import type pg from "pg";
import { HttpError, badRequest } from "./errors";
import { indexedHead } from "./indexer-lag";
import { errorResponse } from "./openapi";

/** How long one reading of the checkpoint serves concurrent requests. */
const CACHE_MS = 200;
const MIN_BLOCK_WAIT_MS = 2_000;
const MIN_BLOCK_POLL_MS = 100;

type Head = { block: number; timestamp: number } | null;
const cache = new WeakMap<pg.Pool, Map<string, { at: number; head: Promise<Head> }>>();

/** The indexed head of `viewsSchema`, read at most once per 200 ms per pool (`fresh`: now). */
export function indexedBlock(pool: pg.Pool, viewsSchema: string, fresh = false): Promise<Head> {
  let perSchema = cache.get(pool);
  if (!perSchema) cache.set(pool, (perSchema = new Map()));
  const cached = perSchema.get(viewsSchema);
  if (!fresh && cached && Date.now() - cached.at < CACHE_MS) return cached.head;
  const head = indexedHead(pool, viewsSchema);
  perSchema.set(viewsSchema, { at: Date.now(), head });
  head.catch(() => perSchema.delete(viewsSchema));
  return head;
}

/** `?minBlock` of a request: undefined when absent; 400 when it is not a block number. */
export function parseMinBlock(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d{1,15}$/.test(value)) throw badRequest("minBlock must be a block number (a non-negative integer)");
  return Number(value);
}

/** Waits (at most 2 s) until the indexed head reaches `minBlock`; 409 naming the indexed block when it does not. */
export async function awaitMinBlock(pool: pg.Pool, viewsSchema: string, minBlock: number): Promise<Head> {
  const deadline = Date.now() + MIN_BLOCK_WAIT_MS;
  for (;;) {
    const head = await indexedBlock(pool, viewsSchema, true);
    if (head && head.block >= minBlock) return head;
    if (Date.now() >= deadline) {
      throw new HttpError(409, `Indexed block ${head?.block ?? "none"} is behind minBlock ${minBlock}: try again shortly`, {
        ...(head ? { "X-Indexed-Block": String(head.block) } : {}),
        "Retry-After": "1",
      });
    }
    await new Promise((resolve) => setTimeout(resolve, MIN_BLOCK_POLL_MS));
  }
}

/** The headers naming the block an answer reflects. */
export function indexedBlockHeaders(head: Head): Record<string, string> {
  return head ? { "X-Indexed-Block": String(head.block), "X-Indexed-Block-Timestamp": String(head.timestamp) } : {};
}

/** What the OpenAPI document of a chain-backed route says of `?minBlock` (api/http/route.ts adds it). */
export const MIN_BLOCK_DOCS = {
  parameter: {
    name: "minBlock",
    in: "query",
    required: false,
    description:
      "Answer only from state at or after this block: waits up to 2 s for the indexer to reach it, else 409 " +
      "with Retry-After. Every answer of this route names the block it reflects in `X-Indexed-Block`.",
    schema: { type: "string", pattern: "^\\d{1,15}$", example: "12345678" },
  },
  responses: { 409: errorResponse("The indexer has not reached `minBlock` yet; see Retry-After and X-Indexed-Block") },
} as const;
