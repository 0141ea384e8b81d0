/**
 * Pure aggregation of the judgments an evaluation collected into its verdict.
 * No I/O: the worker loads the inputs, this decides, the worker stores.
 *
 * Rules (docs/evaluation-api.md, "Verdict"):
 * - Judges are the peer assessments, the human reviews and, when configured
 *   and it answered, the LLM judge. Weights: peer 1, human 2, LLM 1.
 * - Peers and humans give one overall score: it counts for every criterion.
 *   The LLM judge gives one score per criterion.
 * - Per criterion: the weighted median of the judges' scores for it, and the
 *   critiques about it merged (a peer or human critique that names one or more
 *   criteria goes to those; one that names none goes to every criterion).
 * - Overall score: mean of the per-criterion medians; decision by bands:
 *   accept ≥ 70, revise 40–69.9, reject < 40.
 * - Agreement: 1 − mean pairwise |difference| of the judges' overall scores / 90,
 *   clamped to [0, 1]; null with one judge. Dispersion: low ≥ 0.85,
 *   medium ≥ 0.6, high otherwise (null with one judge).
 * - Route: `auto-ship` when accepted and at least two judges said accept with
 *   agreement ≥ 0.8; `block` when rejected; `review` otherwise.
 * - No judge at all: FAILED with a reason.
 */
import type { Decision } from "../limits";

export const JUDGE_WEIGHTS = { peer: 1, human: 2, llm: 1 } as const;
export const DECISION_BANDS = { accept: 70, revise: 40 } as const;
export const AUTO_SHIP_MIN_AGREEMENT = 0.8;
export const AGREEMENT_SCALE = 90;
export const AGGREGATION_METHOD = "weighted-median-v1";

export interface PeerJudgment {
  id: string;
  agentName: string;
  modelName: string;
  score: number;
  decision: Decision;
  critique: string;
}

export interface HumanJudgment {
  id: string;
  reviewerId: string;
  reviewerName: string;
  score: number;
  decision: Decision;
  critique: string;
}

export interface LlmCriterionJudgment {
  criterion: string;
  score: number;
  critique: string;
}

export type LlmJudgment =
  | {
      status: "served";
      model: string;
      criteria: LlmCriterionJudgment[];
      decision: Decision;
      summary: string;
    }
  | { status: "denied"; model: string; error: string };

export interface JudgeInput {
  criteria: string[];
  criteriaSource: "caller" | "service";
  peers: PeerJudgment[];
  humans: HumanJudgment[];
  /** Undefined when no LLM judge is configured. */
  llm?: LlmJudgment;
  /** Attachment judged with the submission (provenance only). */
  attachment?: { filename: string; contentType: string; sha256: string | null } | null;
  judgedAt: Date;
}

export interface CritiqueEntry {
  source: "peer" | "human" | "llm";
  by: string;
  text: string;
}

export interface CriterionVerdict {
  criterion: string;
  score: number;
  judges: number;
  critiques: CritiqueEntry[];
}

export type ProvenanceJudge =
  | { kind: "peer"; id: string; agentName: string; modelName: string; score: number; decision: Decision; weight: number }
  | {
      kind: "human";
      id: string;
      reviewerId: string;
      reviewerName: string;
      score: number;
      decision: Decision;
      weight: number;
    }
  | { kind: "llm"; model: string; status: "served"; score: number; decision: Decision; weight: number }
  | { kind: "llm"; model: string; status: "denied"; error: string };

export type Dispersion = "low" | "medium" | "high";
export type Route = "auto-ship" | "block" | "review";

export interface SettledVerdict {
  score: number;
  decision: Decision;
  criteria: CriterionVerdict[];
  agreement: number | null;
  dispersion: Dispersion | null;
  route: Route;
  quorum: { served: number; denied: number };
  summary: string | null;
  provenance: {
    method: string;
    weights: typeof JUDGE_WEIGHTS;
    criteriaSource: "caller" | "service";
    judges: ProvenanceJudge[];
    attachment: { filename: string; contentType: string; sha256: string | null } | null;
    judgedAt: string;
  };
}

export interface FailedVerdict {
  reason: string;
}

export type JudgeOutcome = { status: "SETTLED"; verdict: SettledVerdict } | { status: "FAILED"; verdict: FailedVerdict };

const round1 = (value: number) => Math.round(value * 10) / 10;
const round3 = (value: number) => Math.round(value * 1000) / 1000;
const clampScore = (value: number) => Math.min(100, Math.max(0, value));

/** Median where each value counts `weight` times; equal weights give the ordinary median. */
export function weightedMedian(values: { value: number; weight: number }[]): number {
  const sorted = values.filter((v) => v.weight > 0).sort((a, b) => a.value - b.value);
  if (sorted.length === 0) throw new Error("weightedMedian of nothing");
  const total = sorted.reduce((sum, v) => sum + v.weight, 0);
  let cumulative = 0;
  for (let i = 0; i < sorted.length; i++) {
    const current = sorted[i]!;
    cumulative += current.weight;
    if (cumulative > total / 2) return current.value;
    if (cumulative === total / 2) return (current.value + sorted[i + 1]!.value) / 2;
  }
  return sorted.at(-1)!.value;
}

export function median(values: number[]): number {
  return weightedMedian(values.map((value) => ({ value, weight: 1 })));
}

export function decisionFor(score: number): Decision {
  if (score >= DECISION_BANDS.accept) return "accept";
  if (score >= DECISION_BANDS.revise) return "revise";
  return "reject";
}

/** 1 − mean pairwise absolute difference / 90, clamped to [0, 1]; null with fewer than two judges. */
export function agreement(scores: number[]): number | null {
  if (scores.length < 2) return null;
  let sum = 0;
  let pairs = 0;
  for (let i = 0; i < scores.length; i++) {
    for (let j = i + 1; j < scores.length; j++) {
      sum += Math.abs(scores[i]! - scores[j]!);
      pairs++;
    }
  }
  return round3(Math.min(1, Math.max(0, 1 - sum / pairs / AGREEMENT_SCALE)));
}

export function dispersionFor(value: number | null): Dispersion | null {
  if (value === null) return null;
  if (value >= 0.85) return "low";
  if (value >= 0.6) return "medium";
  return "high";
}

export function routeFor(decision: Decision, acceptingJudges: number, agreementValue: number | null): Route {
  if (decision === "reject") return "block";
  if (
    decision === "accept" &&
    acceptingJudges >= 2 &&
    agreementValue !== null &&
    agreementValue >= AUTO_SHIP_MIN_AGREEMENT
  ) {
    return "auto-ship";
  }
  return "review";
}

const normalise = (text: string) => text.trim().toLowerCase().replace(/\s+/g, " ");

/** Criteria once each, in the caller's order (case and spacing do not make a new criterion). */
export function distinctCriteria(criteria: string[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const criterion of criteria) {
    const key = normalise(criterion);
    if (key === "" || seen.has(key)) continue;
    seen.add(key);
    out.push(criterion.trim());
  }
  return out;
}

/** Whether `critique` names `criterion` (the whole criterion, or its first few words for long ones). */
export function mentions(critique: string, criterion: string): boolean {
  const text = normalise(critique);
  const name = normalise(criterion);
  if (name.length === 0) return false;
  if (text.includes(name)) return true;
  // Long criteria ("Correctness of the numerical results") are named by their head word(s).
  const head = name.split(" ").slice(0, 3).join(" ");
  const firstWord = name.split(" ")[0]!;
  if (head !== name && head.length >= 8 && text.includes(head)) return true;
  return firstWord.length >= 6 && new RegExp(`\\b${escapeRegExp(firstWord)}`).test(text);
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** Finds the LLM's entry for a criterion: by name, else by position when it answered one per criterion. */
function llmEntryFor(
  llm: Extract<LlmJudgment, { status: "served" }>,
  criterion: string,
  index: number,
  criteriaCount: number,
): LlmCriterionJudgment | undefined {
  const byName = llm.criteria.find((entry) => normalise(entry.criterion) === normalise(criterion));
  if (byName) return byName;
  if (llm.criteria.length === criteriaCount) return llm.criteria[index];
  return undefined;
}

export function llmOverallScore(llm: Extract<LlmJudgment, { status: "served" }>): number {
  if (llm.criteria.length === 0) return 0;
  return llm.criteria.reduce((sum, entry) => sum + clampScore(entry.score), 0) / llm.criteria.length;
}

type ServedLlm = Extract<LlmJudgment, { status: "served" }>;

/** Why nothing can be settled (no judge answered, or nothing to judge), or undefined. */
function failureReason(llmDenied: LlmJudgment | undefined, served: number, criteriaCount: number): string | undefined {
  if (served === 0) {
    return llmDenied
      ? `No peer assessment was received before the window closed and the judge could not answer (${
          llmDenied.status === "denied" ? llmDenied.error : "no usable answer"
        })`
      : "No peer assessment was received before the window closed and no judge is configured";
  }
  if (criteriaCount === 0) return "The evaluation has no criteria to judge";
  return undefined;
}

/** Each criterion's weighted median of the judges' scores, with the critiques that concern it. */
function criterionVerdicts(
  input: JudgeInput,
  criteria: string[],
  llmServed: ServedLlm | undefined,
  overallLlm: number | undefined,
  served: number,
): CriterionVerdict[] {
  const humanCritiques = input.humans.map((h) => ({
    entry: { source: "human" as const, by: h.reviewerName, text: h.critique },
  }));
  const peerCritiques = input.peers.map((p) => ({
    entry: { source: "peer" as const, by: `${p.agentName} (${p.modelName})`, text: p.critique },
  }));
  const overallCritiques = [...humanCritiques, ...peerCritiques].map(({ entry }) => ({
    entry,
    named: criteria.filter((criterion) => mentions(entry.text, criterion)),
  }));

  return criteria.map((criterion, index) => {
    const scores = [
      ...input.peers.map((p) => ({ value: clampScore(p.score), weight: JUDGE_WEIGHTS.peer })),
      ...input.humans.map((h) => ({ value: clampScore(h.score), weight: JUDGE_WEIGHTS.human })),
    ];
    const critiques: CritiqueEntry[] = [];
    if (llmServed) {
      const entry = llmEntryFor(llmServed, criterion, index, criteria.length);
      scores.push({ value: entry ? clampScore(entry.score) : overallLlm!, weight: JUDGE_WEIGHTS.llm });
      if (entry?.critique.trim()) critiques.push({ source: "llm", by: llmServed.model, text: entry.critique.trim() });
    }
    for (const { entry, named } of overallCritiques) {
      if (named.length === 0 || named.includes(criterion)) critiques.push(entry);
    }
    return { criterion, score: round1(weightedMedian(scores)), judges: served, critiques };
  });
}

/** Every judge as the verdict's provenance lists it. */
function provenanceJudges(
  input: JudgeInput,
  llmServed: ServedLlm | undefined,
  llmDenied: LlmJudgment | undefined,
  overallLlm: number | undefined,
): ProvenanceJudge[] {
  const judges: ProvenanceJudge[] = [
    ...input.peers.map((p) => ({
      kind: "peer" as const,
      id: p.id,
      agentName: p.agentName,
      modelName: p.modelName,
      score: p.score,
      decision: p.decision,
      weight: JUDGE_WEIGHTS.peer,
    })),
    ...input.humans.map((h) => ({
      kind: "human" as const,
      id: h.id,
      reviewerId: h.reviewerId,
      reviewerName: h.reviewerName,
      score: h.score,
      decision: h.decision,
      weight: JUDGE_WEIGHTS.human,
    })),
  ];
  if (llmServed) {
    judges.push({
      kind: "llm",
      model: llmServed.model,
      status: "served",
      score: round1(overallLlm!),
      decision: llmServed.decision,
      weight: JUDGE_WEIGHTS.llm,
    });
  } else if (llmDenied) {
    judges.push({
      kind: "llm",
      model: llmDenied.model,
      status: "denied",
      error: llmDenied.status === "denied" ? llmDenied.error : "no per-criterion scores in the answer",
    });
  }
  return judges;
}

export function judge(input: JudgeInput): JudgeOutcome {
  const criteria = distinctCriteria(input.criteria);
  const llmServed = input.llm?.status === "served" && input.llm.criteria.length > 0 ? input.llm : undefined;
  const llmDenied = input.llm && !llmServed ? input.llm : undefined;
  const served = input.peers.length + input.humans.length + (llmServed ? 1 : 0);
  const denied = llmDenied ? 1 : 0;
  const reason = failureReason(llmDenied, served, criteria.length);
  if (reason) return { status: "FAILED", verdict: { reason } };

  const overallLlm = llmServed ? clampScore(llmOverallScore(llmServed)) : undefined;
  const perCriterion = criterionVerdicts(input, criteria, llmServed, overallLlm, served);
  const score = round1(perCriterion.reduce((sum, c) => sum + c.score, 0) / perCriterion.length);
  const decision = decisionFor(score);

  const judgeScores = [
    ...input.peers.map((p) => clampScore(p.score)),
    ...input.humans.map((h) => clampScore(h.score)),
    ...(overallLlm !== undefined ? [overallLlm] : []),
  ];
  const judgeDecisions: Decision[] = [
    ...input.peers.map((p) => p.decision),
    ...input.humans.map((h) => h.decision),
    ...(llmServed ? [llmServed.decision] : []),
  ];
  const agreementValue = agreement(judgeScores);
  const accepting = judgeDecisions.filter((d) => d === "accept").length;

  return {
    status: "SETTLED",
    verdict: {
      score,
      decision,
      criteria: perCriterion,
      agreement: agreementValue,
      dispersion: dispersionFor(agreementValue),
      route: routeFor(decision, accepting, agreementValue),
      quorum: { served, denied },
      summary: llmServed?.summary.trim() ? llmServed.summary.trim() : null,
      provenance: {
        method: AGGREGATION_METHOD,
        weights: JUDGE_WEIGHTS,
        criteriaSource: input.criteriaSource,
        judges: provenanceJudges(input, llmServed, llmDenied, overallLlm),
        attachment: input.attachment ?? null,
        judgedAt: input.judgedAt.toISOString(),
      },
    },
  };
}
