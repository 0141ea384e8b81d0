import { sql } from "drizzle-orm";
import {
  type AnyPgColumn,
  check,
  index,
  integer,
  jsonb,
  numeric,
  text,
  timestamp,
  unique,
  uuid,
} from "drizzle-orm/pg-core";
import { createdAt, offchain, updatedAt } from "./shared";

const score = (name: string) => numeric(name, { mode: "number" });
const decisionCheck = (name: string, column: AnyPgColumn) =>
  check(name, sql`${column} in ('accept', 'revise', 'reject')`);

export const evalAccounts = offchain.table("eval_accounts", {
  id: uuid("id").primaryKey().defaultRandom(),
  name: text("name").notNull(),
  createdAt: createdAt(),
});

export const evalApiKeys = offchain.table(
  "eval_api_keys",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    accountId: uuid("account_id")
      .notNull()
      .references(() => evalAccounts.id),
    /** sha-256 hex of the API key; the key itself is never stored. */
    keyHash: text("key_hash").notNull().unique(),
    label: text("label"),
    createdAt: createdAt(),
    revokedAt: timestamp("revoked_at", { withTimezone: true }),
  },
  (t) => [index("eval_api_keys_account_idx").on(t.accountId)],
);

export const evaluations = offchain.table(
  "evaluations",
  {
    /** Internal id; the read endpoint takes `evalId`, never this. */
    id: uuid("id").primaryKey().defaultRandom(),
    evalId: text("eval_id").notNull().unique(),
    accountId: uuid("account_id")
      .notNull()
      .references(() => evalAccounts.id),
    type: text("type").notNull(),
    status: text("status").notNull().default("PENDING"),
    mode: text("mode").notNull().default("STANDARD"),
    score: score("score").notNull().default(0),
    payload: text("payload").notNull(),
    criteria: jsonb("criteria").$type<string[]>().notNull().default([]),
    /** 'caller' when the submitter named the criteria, 'service' when it sent none and the service picked them. */
    criteriaSource: text("criteria_source").notNull().default("caller"),
    context: text("context"),
    settlementMinutes: integer("settlement_minutes").notNull(),
    minSettleAt: timestamp("min_settle_at", { withTimezone: true }).notNull(),
    settledAt: timestamp("settled_at", { withTimezone: true }),
    verdict: jsonb("verdict").$type<Record<string, unknown>>(),
    idempotencyKey: text("idempotency_key"),
    /** Hash of the submitted body, to tell a replay from a conflicting re-use of the key. */
    requestHash: text("request_hash"),
    lockedBy: text("locked_by"),
    lockedAt: timestamp("locked_at", { withTimezone: true }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    check("evaluations_type", sql`${t.type} in ('answer', 'plan', 'trace', 'artifact')`),
    check("evaluations_status", sql`${t.status} in ('PENDING', 'SETTLED', 'FAILED')`),
    check("evaluations_mode", sql`${t.mode} in ('STANDARD', 'LITE')`),
    check("evaluations_criteria_source", sql`${t.criteriaSource} in ('caller', 'service')`),
    unique("evaluations_account_idempotency_key").on(t.accountId, t.idempotencyKey),
    index("evaluations_status_min_settle_idx").on(t.status, t.minSettleAt),
    index("evaluations_account_created_idx").on(t.accountId, t.createdAt),
  ],
);

export const evalAttachments = offchain.table(
  "eval_attachments",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    evaluationId: uuid("evaluation_id").references(() => evaluations.id),
    accountId: uuid("account_id")
      .notNull()
      .references(() => evalAccounts.id),
    key: text("key").notNull().unique(),
    filename: text("filename").notNull(),
    contentType: text("content_type").notNull(),
    sizeBytes: integer("size_bytes"),
    /** sha-256 hex of the bytes sealed at submit (what peers download and the judge sees). */
    sha256: text("sha256"),
    uploadedAt: timestamp("uploaded_at", { withTimezone: true }),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    index("eval_attachments_evaluation_idx").on(t.evaluationId),
    index("eval_attachments_account_idx").on(t.accountId),
  ],
);

export const evalAssessments = offchain.table(
  "eval_assessments",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    evaluationId: uuid("evaluation_id")
      .notNull()
      .references(() => evaluations.id),
    accountId: uuid("account_id")
      .notNull()
      .references(() => evalAccounts.id),
    agentName: text("agent_name").notNull(),
    modelName: text("model_name").notNull(),
    score: score("score").notNull(),
    decision: text("decision").notNull(),
    critique: text("critique").notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    decisionCheck("eval_assessments_decision", t.decision),
    unique("eval_assessments_evaluation_account").on(t.evaluationId, t.accountId),
    index("eval_assessments_account_idx").on(t.accountId),
  ],
);

export const evalHumanReviews = offchain.table(
  "eval_human_reviews",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    evaluationId: uuid("evaluation_id")
      .notNull()
      .references(() => evaluations.id),
    reviewerId: text("reviewer_id").notNull(),
    reviewerName: text("reviewer_name").notNull(),
    score: score("score").notNull(),
    decision: text("decision").notNull(),
    critique: text("critique").notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    decisionCheck("eval_human_reviews_decision", t.decision),
    index("eval_human_reviews_evaluation_idx").on(t.evaluationId, t.createdAt),
  ],
);
