/**
 * Picks 2–5 evaluation dimensions when a submission names no criteria.
 *
 * Deterministic: each catalogue dimension scores its base weight for the
 * submission type plus one point per distinct keyword found in the payload and
 * context (at most 3), plus the attachment bonus. The two best always make it;
 * the 3rd to 5th only with a score of at least 2. Ties keep catalogue order.
 */
import type { EvalType } from "./limits";

interface Dimension {
  name: string;
  base: Partial<Record<EvalType, number>>;
  keywords: string[];
  /** Extra points when the submission carries an attachment of this kind. */
  attachment?: { image?: number; pdf?: number };
}

export const DIMENSIONS: readonly Dimension[] = [
  {
    name: "Correctness",
    base: { answer: 3, trace: 2, artifact: 1, plan: 1 },
    keywords: ["answer", "result", "calculate", "equals", "prove", "solution", "fact", "correct"],
  },
  {
    name: "Completeness",
    base: { answer: 2, plan: 2, artifact: 1, trace: 1 },
    keywords: ["all ", "every", "list", "requirements", "cover", "missing", "each"],
  },
  {
    name: "Clarity",
    base: { answer: 2, artifact: 2, plan: 1 },
    keywords: ["explain", "summary", "summarize", "describe", "document", "readme", "overview"],
  },
  {
    name: "Feasibility",
    base: { plan: 3 },
    keywords: ["timeline", "budget", "milestone", "resource", "deadline", "schedule", "cost", "week"],
  },
  {
    name: "Risk handling",
    base: { plan: 2 },
    keywords: ["risk", "fallback", "rollback", "mitigat", "failure", "contingency", "edge case"],
  },
  {
    name: "Reasoning quality",
    base: { trace: 3, answer: 1 },
    keywords: ["because", "therefore", "thought", "reason", "hypothes", "step ", "conclude"],
  },
  {
    name: "Tool use and efficiency",
    base: { trace: 2 },
    keywords: ["tool", "function call", "api", "query", "retry", "latency", "tokens", "observation"],
  },
  {
    name: "Code quality",
    base: {},
    keywords: ["```", "function", "class ", "def ", "import ", "return ", "const ", "=>", "compile"],
  },
  {
    name: "Safety and security",
    base: {},
    keywords: ["password", "secret", "credential", "auth", "injection", "vulnerab", "exploit", "permission", "privacy"],
  },
  {
    name: "Use of sources",
    base: {},
    keywords: ["http://", "https://", "source", "cite", "citation", "reference", "according to", "study", "dataset"],
  },
  {
    name: "Fitness for purpose",
    base: { artifact: 3 },
    keywords: ["user", "goal", "purpose", "spec", "deliverable", "audience", "use case"],
  },
  {
    name: "Visual quality",
    base: {},
    keywords: ["image", "design", "layout", "chart", "diagram", "screenshot", "color", "figure"],
    attachment: { image: 3, pdf: 1 },
  },
];

export const MIN_PICKED = 2;
export const MAX_PICKED = 5;
const KEYWORD_CAP = 3;
const OPTIONAL_THRESHOLD = 2;

export interface PickInput {
  type: EvalType;
  payload: string;
  context?: string | null;
  attachmentContentType?: string | null;
}

export function pickCriteria({ type, payload, context, attachmentContentType }: PickInput): string[] {
  const text = `${payload}\n${context ?? ""}`.toLowerCase();
  const attachmentKind = attachmentContentType?.startsWith("image/")
    ? "image"
    : attachmentContentType === "application/pdf"
      ? "pdf"
      : undefined;

  const scored = DIMENSIONS.map((dimension, order) => {
    const hits = dimension.keywords.filter((keyword) => text.includes(keyword)).length;
    const bonus = attachmentKind ? (dimension.attachment?.[attachmentKind] ?? 0) : 0;
    return { name: dimension.name, order, score: (dimension.base[type] ?? 0) + Math.min(hits, KEYWORD_CAP) + bonus };
  }).sort((a, b) => b.score - a.score || a.order - b.order);

  const picked = scored.slice(0, MIN_PICKED);
  for (const candidate of scored.slice(MIN_PICKED, MAX_PICKED)) {
    if (candidate.score >= OPTIONAL_THRESHOLD) picked.push(candidate);
  }
  return picked.map((dimension) => dimension.name);
}
