/**
 * Operator commands of the Evaluation API (scripts/eval-key.ts,
 * scripts/eval-review.ts): argument parsing and the work itself, kept here so
 * tests run them in-process.
 */
import { parseArgs } from "node:util";
import { eq } from "drizzle-orm";
import { z } from "zod";
import type { OffchainDb } from "../db/client";
import { evalHumanReviews, evaluations } from "../db/offchain/eval";
import { issueKeyForAccountName, revokeApiKey } from "./repositories/keys";
import { DECISIONS, LIMITS, codePoints, utf8Bytes } from "./limits";

export class UsageError extends Error {
  override name = "UsageError";
}

function problems(error: z.ZodError): string {
  return error.issues.map((issue) => `--${issue.path.join(".")}: ${issue.message}`).join("; ");
}

const name = (max: number) =>
  z
    .string()
    .trim()
    .min(1, "must not be empty")
    .refine((text) => codePoints(text) <= max, `must be at most ${max} characters`)
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it refuses
    .refine((text) => !/[\u0000-\u001f\u007f]/.test(text), "must not contain control characters");

// ---------------------------------------------------------------- eval:key

export const KEY_USAGE = `Usage:
  npm run eval:key -- --account <name> [--label <label>]   create the account if needed and print a new key once
  npm run eval:key -- --revoke <key id>                      revoke a key`;

export type KeyCommand =
  | { kind: "issue"; account: string; label: string | null }
  | { kind: "revoke"; keyId: string };

export function parseKeyArgs(argv: string[]): KeyCommand {
  let values: { account?: string; label?: string; revoke?: string };
  try {
    ({ values } = parseArgs({
      args: argv,
      options: { account: { type: "string" }, label: { type: "string" }, revoke: { type: "string" } },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw new UsageError(`${(error as Error).message}\n${KEY_USAGE}`);
  }
  if (values.revoke !== undefined) {
    if (values.account !== undefined) throw new UsageError(`--revoke and --account do not go together\n${KEY_USAGE}`);
    const keyId = z.uuid().safeParse(values.revoke);
    if (!keyId.success) throw new UsageError("--revoke: must be a key id (a UUID)");
    return { kind: "revoke", keyId: keyId.data };
  }
  if (values.account === undefined) throw new UsageError(`--account is required\n${KEY_USAGE}`);
  const parsed = z
    .object({ account: name(LIMITS.nameChars), label: name(LIMITS.nameChars).optional() })
    .safeParse({ account: values.account, label: values.label });
  if (!parsed.success) throw new UsageError(problems(parsed.error));
  return { kind: "issue", account: parsed.data.account, label: parsed.data.label ?? null };
}

export async function runKeyCommand(db: OffchainDb, command: KeyCommand): Promise<string> {
  if (command.kind === "revoke") {
    const revoked = await revokeApiKey(db, command.keyId);
    if (!revoked) throw new UsageError(`No live key with id ${command.keyId}`);
    return `Revoked key ${command.keyId}`;
  }
  const issued = await issueKeyForAccountName(db, command.account, command.label ?? "eval:key");
  return [
    `Account: ${issued.accountName} (${issued.accountId})${issued.accountCreated ? " — created" : ""}`,
    `Key id:  ${issued.keyId}`,
    `API key (shown once, store it now): ${issued.key}`,
    "Send it as `Authorization: Bearer <key>` or `x-api-key: <key>`.",
  ].join("\n");
}

// ---------------------------------------------------------------- eval:review

export const REVIEW_USAGE = `Usage:
  npm run eval:review -- --eval <evalId> --reviewer-id <id> --reviewer-name <name>
                         --score <0-100> --decision <accept|revise|reject> --critique <text>`;

const ReviewSchema = z.object({
  eval: z.string().trim().min(1, "is required"),
  "reviewer-id": name(LIMITS.nameChars),
  "reviewer-name": name(LIMITS.nameChars),
  score: z.coerce.number().min(0).max(100),
  decision: z.enum(DECISIONS),
  critique: z
    .string()
    .refine((text) => text.trim().length > 0, "must not be empty")
    .refine((text) => !text.includes("\u0000"), "must not contain NUL characters")
    .refine((text) => utf8Bytes(text) <= LIMITS.critiqueBytes, `must be at most 2 KB (${LIMITS.critiqueBytes} bytes)`),
});

export interface ReviewCommand {
  evalId: string;
  reviewerId: string;
  reviewerName: string;
  score: number;
  decision: (typeof DECISIONS)[number];
  critique: string;
}

export function parseReviewArgs(argv: string[]): ReviewCommand {
  const options = {
    eval: { type: "string" },
    "reviewer-id": { type: "string" },
    "reviewer-name": { type: "string" },
    score: { type: "string" },
    decision: { type: "string" },
    critique: { type: "string" },
  } as const;
  let values: Record<string, string | undefined>;
  try {
    ({ values } = parseArgs({ args: argv, options, strict: true, allowPositionals: false }));
  } catch (error) {
    throw new UsageError(`${(error as Error).message}\n${REVIEW_USAGE}`);
  }
  const missing = Object.keys(options).filter((option) => values[option] === undefined);
  if (missing.length > 0) throw new UsageError(`Missing ${missing.map((m) => `--${m}`).join(", ")}\n${REVIEW_USAGE}`);
  // `--score ""` would coerce to 0.
  if (values.score!.trim() === "") throw new UsageError("--score: must be a number from 0 to 100");
  const parsed = ReviewSchema.safeParse(values);
  if (!parsed.success) throw new UsageError(problems(parsed.error));
  const v = parsed.data;
  return {
    evalId: v.eval,
    reviewerId: v["reviewer-id"],
    reviewerName: v["reviewer-name"],
    score: v.score,
    decision: v.decision,
    critique: v.critique,
  };
}

export interface RecordedReview {
  review: typeof evalHumanReviews.$inferSelect;
  evaluationStatus: string;
}

/** Records a human review of an evaluation (by its evalId); the judge weighs it if it is still PENDING. */
export async function recordHumanReview(db: OffchainDb, command: ReviewCommand, now: Date = new Date()): Promise<RecordedReview> {
  const [evaluation] = await db
    .select({ id: evaluations.id, status: evaluations.status })
    .from(evaluations)
    .where(eq(evaluations.evalId, command.evalId))
    .limit(1);
  if (!evaluation) throw new UsageError(`No evaluation with evalId ${command.evalId}`);
  const [review] = await db
    .insert(evalHumanReviews)
    .values({
      evaluationId: evaluation.id,
      reviewerId: command.reviewerId,
      reviewerName: command.reviewerName,
      score: command.score,
      decision: command.decision,
      critique: command.critique,
      createdAt: now,
    })
    .returning();
  return { review: review!, evaluationStatus: evaluation.status };
}

export function describeReview({ review, evaluationStatus }: RecordedReview, evalId: string): string {
  const lines = [
    `Recorded human review ${review.id} of ${evalId}: ${review.score} (${review.decision}) by ${review.reviewerName} [${review.reviewerId}]`,
  ];
  if (evaluationStatus !== "PENDING") {
    lines.push(
      `Note: the evaluation is already ${evaluationStatus}; the owner sees the review, but the verdict is not judged again.`,
    );
  }
  return lines.join("\n");
}
