import { z } from "@hono/zod-openapi";
import { countIndexerRestart } from "./metrics";

/**
 * The restarts of the indexer by its supervisor, as this process knows them: the launcher
 * (scripts/start.ts) runs the supervisor and the API in one process and records each crash here.
 * An API started on its own (api/main.ts) supervises no indexer and counts none.
 *
 * One crash is reported (an error log line, /health, the metric) but leaves readiness to the lag
 * bound: the restarted indexer resumes from its checkpoint. Repeated crashes are a crash loop,
 * in which the indexed data only goes staler: `/ready` answers 503 naming the cause.
 */
export type IndexerCrashCause = "out-of-memory" | "rpc" | "database" | "other";

export const INDEXER_CRASH_CAUSES: readonly IndexerCrashCause[] = ["out-of-memory", "rpc", "database", "other"];

/** Crashes within this window count towards a crash loop. */
export const CRASH_LOOP_WINDOW_MS = 15 * 60_000;
/** This many crashes within the window make a crash loop. */
export const CRASH_LOOP_RESTARTS = 2;

const CAUSE_TEXT: Record<IndexerCrashCause, string> = {
  "out-of-memory": "out of memory",
  rpc: "RPC failure",
  database: "database failure",
  other: "unexpected exit",
};

export interface IndexerRestarts {
  /** Restarts since this process started. */
  total: number;
  /** Restarts within the last `windowSeconds`. */
  recent: number;
  windowSeconds: number;
  lastCause: IndexerCrashCause | null;
  lastAt: string | null;
  crashLoop: boolean;
  /** Why the indexer is in a crash loop (absent otherwise). */
  reason?: string;
}

export const IndexerRestartsSchema = z
  .object({
    total: z.number().int(),
    recent: z.number().int(),
    windowSeconds: z.number().int(),
    lastCause: z.enum(["out-of-memory", "rpc", "database", "other"]).nullable(),
    lastAt: z.string().nullable().openapi({ format: "date-time" }),
    crashLoop: z.boolean(),
    reason: z.string().optional(),
  })
  .openapi("IndexerRestarts", {
    description: `The indexer's restarts by the launcher's supervisor, with the cause of the last crash; ${CRASH_LOOP_RESTARTS} or more within the window are a crash loop (/ready answers 503)`,
    example: {
      total: 0,
      recent: 0,
      windowSeconds: CRASH_LOOP_WINDOW_MS / 1000,
      lastCause: null,
      lastAt: null,
      crashLoop: false,
    },
  });

const crashes: Array<{ at: number; cause: IndexerCrashCause }> = [];
let total = 0;

/** Records one crash of the indexer (the supervisor restarts it). */
export function recordIndexerCrash(cause: IndexerCrashCause, at = Date.now()): IndexerRestarts {
  total += 1;
  crashes.push({ at, cause });
  // only the window matters beyond the total
  while (crashes.length > 0 && crashes[0]!.at < at - CRASH_LOOP_WINDOW_MS) crashes.shift();
  countIndexerRestart(cause);
  return indexerRestarts(at);
}

export function describeCrashCause(cause: IndexerCrashCause): string {
  return CAUSE_TEXT[cause];
}

export function indexerRestarts(now = Date.now()): IndexerRestarts {
  const recent = crashes.filter((crash) => crash.at >= now - CRASH_LOOP_WINDOW_MS);
  const last = crashes.at(-1);
  const crashLoop = recent.length >= CRASH_LOOP_RESTARTS;
  return {
    total,
    recent: recent.length,
    windowSeconds: CRASH_LOOP_WINDOW_MS / 1000,
    lastCause: last?.cause ?? null,
    lastAt: last ? new Date(last.at).toISOString() : null,
    crashLoop,
    ...(crashLoop && last
      ? {
          reason: `Indexer crash loop: restarted ${recent.length} times in the last ${CRASH_LOOP_WINDOW_MS / 60_000} minutes (last cause: ${CAUSE_TEXT[last.cause]})`,
        }
      : {}),
  };
}
