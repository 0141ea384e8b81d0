/**
 * Settlement worker: every `pollSeconds` (≤ 30 s) it claims the evaluations
 * whose window has closed, judges them and stores the outcome.
 *
 * Safe with several replicas and across crashes:
 * - claims use `FOR UPDATE SKIP LOCKED` and stamp the row with a claim token
 *   and time (a lease), so concurrent workers judge disjoint sets;
 * - the outcome is written by one UPDATE that requires the row to be PENDING
 *   and still held by the same token, so an evaluation settles at most once;
 * - a worker that dies mid-way leaves a lease that runs out after
 *   `leaseSeconds`; another worker then judges the evaluation again from the
 *   stored assessments (nothing was written, nothing is lost).
 */
import { randomUUID } from "node:crypto";
import type { Logger } from "pino";
import type { OffchainDb } from "../../db/client";
import { humanJudgment, loadEvaluationDetails, peerJudgment } from "../repositories/eval-requests";
import type { AttachmentStorage } from "../storage/index";
import { judge, type LlmJudgment } from "./judge";
import type { LlmJudge } from "./llm-judge";
import { claimDue, finalize, release, type EvaluationRow } from "../repositories/settlement";

export const MAX_POLL_SECONDS = 30;

export interface SettlementWorkerOptions {
  db: OffchainDb;
  storage: AttachmentStorage;
  logger: Logger;
  /** The OpenAI-compatible judge, when configured. */
  judge?: LlmJudge | null;
  /** The service clock; tests drive it. */
  now?: () => Date;
  /** At most 30. Default 10. */
  pollSeconds?: number;
  /** Evaluations claimed per round. Default 10. */
  batchSize?: number;
  /** How long a claim stays exclusive. Default: the judge's time budget (two attempts) plus a minute. */
  leaseSeconds?: number;
  /**
   * When the judge fails and no peer or human judged either, the evaluation is
   * retried at later polls until this many seconds after its window closed,
   * then FAILED. Default 180 (results are due within 5 minutes).
   */
  judgeRetrySeconds?: number;
  judgeTimeoutSeconds?: number;
  workerId?: string;
}

export type SettlementResult = "settled" | "failed" | "retry" | "lost";

export interface SettlementRun {
  settled: string[];
  failed: string[];
  retried: string[];
  /** Outcomes discarded because another worker had taken the evaluation over. */
  lost: string[];
}

export interface Claim {
  token: string;
  rows: EvaluationRow[];
}

export class SettlementWorker {
  readonly workerId: string;
  private readonly now: () => Date;
  private readonly pollMs: number;
  private readonly batchSize: number;
  private readonly leaseMs: number;
  private readonly judgeRetryMs: number;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;
  private stopped = true;
  private stopRequested = false;

  constructor(private readonly options: SettlementWorkerOptions) {
    const pollSeconds = options.pollSeconds ?? 10;
    if (!(pollSeconds > 0 && pollSeconds <= MAX_POLL_SECONDS)) {
      throw new Error(`pollSeconds must be in (0, ${MAX_POLL_SECONDS}]`);
    }
    this.workerId = options.workerId ?? `settlement-${process.pid}-${randomUUID().slice(0, 8)}`;
    this.now = options.now ?? (() => new Date());
    this.pollMs = pollSeconds * 1000;
    this.batchSize = options.batchSize ?? 10;
    const judgeBudgetSeconds = options.judge ? (options.judgeTimeoutSeconds ?? 60) * 2 : 0;
    this.leaseMs = (options.leaseSeconds ?? judgeBudgetSeconds + 60) * 1000;
    this.judgeRetryMs = (options.judgeRetrySeconds ?? 180) * 1000;
  }

  /** Claims the due evaluations nobody holds (one round, at most `batchSize`). */
  async claim(): Promise<Claim> {
    const now = this.now();
    const token = `${this.workerId}:${randomUUID()}`;
    const rows = await claimDue(this.options.db, {
      token,
      now,
      leaseCutoff: new Date(now.getTime() - this.leaseMs),
      limit: this.batchSize,
    });
    return { token, rows };
  }

  /** Judges and stores one claimed evaluation. */
  async settle(row: EvaluationRow, token: string): Promise<SettlementResult> {
    const { db, storage, logger } = this.options;
    const llmJudge = this.options.judge ?? null;
    const { assessments, reviews, attachments } = await loadEvaluationDetails(db, row.id);
    const attachment = attachments[0] ?? null;

    let llm: LlmJudgment | undefined;
    if (llmJudge) {
      const bytes = attachment ? await storage.readSealed(attachment.key).catch(() => null) : null;
      llm =
        attachment && !bytes
          ? { status: "denied", model: llmJudge.model, error: "the attachment could not be read" }
          : await llmJudge.judge({
              evalId: row.evalId,
              type: row.type,
              payload: row.payload,
              context: row.context,
              criteria: row.criteria,
              attachment: attachment && bytes ? { filename: attachment.filename, contentType: attachment.contentType, bytes } : null,
            });
    }

    const at = this.now();
    const outcome = judge({
      criteria: row.criteria,
      criteriaSource: row.criteriaSource === "service" ? "service" : "caller",
      peers: assessments.map(peerJudgment),
      humans: reviews.map(humanJudgment),
      llm,
      attachment: attachment
        ? { filename: attachment.filename, contentType: attachment.contentType, sha256: attachment.sha256 }
        : null,
      judgedAt: at,
    });

    // Only the judge could have judged and it failed: try again at a later poll while results are still due.
    if (outcome.status === "FAILED" && llm?.status === "denied" && at.getTime() < row.minSettleAt.getTime() + this.judgeRetryMs) {
      await release(db, { id: row.id, token, at });
      logger.warn({ evalId: row.evalId, reason: llm.error }, "judge failed; evaluation will be retried");
      return "retry";
    }

    const stored = await finalize(db, {
      id: row.id,
      token,
      status: outcome.status,
      verdict: outcome.verdict as unknown as Record<string, unknown>,
      at,
    });
    if (!stored) {
      logger.warn({ evalId: row.evalId }, "settlement discarded: the evaluation was taken over or already settled");
      return "lost";
    }
    logger.info(
      { evalId: row.evalId, status: outcome.status, ...(outcome.status === "SETTLED" ? { decision: outcome.verdict.decision } : {}) },
      "evaluation judged",
    );
    return outcome.status === "SETTLED" ? "settled" : "failed";
  }

  /** Claims and judges until nothing is due (or a round leaves something for later). */
  async runOnce(): Promise<SettlementRun> {
    const run: SettlementRun = { settled: [], failed: [], retried: [], lost: [] };
    for (;;) {
      const { token, rows } = await this.claim();
      if (rows.length === 0) break;
      const results = await Promise.all(
        rows.map(async (row) => {
          try {
            return { row, result: await this.settle(row, token) };
          } catch (error) {
            // Left claimed: the lease runs out and it is judged again.
            this.options.logger.error({ err: error, evalId: row.evalId }, "settlement failed");
            return { row, result: "retry" as const };
          }
        }),
      );
      for (const { row, result } of results) {
        const bucket = result === "settled" ? run.settled : result === "failed" ? run.failed : result === "lost" ? run.lost : run.retried;
        bucket.push(row.evalId);
      }
      if (this.stopRequested) break;
      if (rows.length < this.batchSize || results.some(({ result }) => result === "retry")) break;
    }
    return run;
  }

  /** Polls every `pollSeconds` until `stop()`. */
  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.stopRequested = false;
    this.schedule(0);
  }

  private schedule(delayMs: number): void {
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.running = this.runOnce()
        .catch((error: unknown) => this.options.logger.error({ err: error }, "settlement round failed"))
        .finally(() => {
          this.running = undefined;
          if (!this.stopped) this.schedule(this.pollMs);
        });
    }, delayMs);
    this.timer.unref?.();
  }

  /**
   * Stops polling and waits for the round in progress, at most `graceMs`: a
   * round cut short leaves its claims to run out (nothing is half-written).
   */
  async stop(graceMs = 5_000): Promise<void> {
    this.stopped = true;
    this.stopRequested = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.running) return;
    let grace: NodeJS.Timeout | undefined;
    await Promise.race([
      this.running,
      new Promise<void>((resolve) => {
        grace = setTimeout(resolve, graceMs);
        grace.unref?.();
      }),
    ]);
    clearTimeout(grace);
  }
}
