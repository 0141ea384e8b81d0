import type { Logger } from "pino";
import { classifyMode, type ChatMode } from "./classifier";
import { compose } from "./composer";
import { searchLiveRecords, type KnowledgeBase, type Passage } from "./knowledge";
import { gatherLiveState, liveRecords, type LiveStateDeps } from "./live-state";
import type { Llm, LlmMessage } from "./llm";

export interface Source {
  source: string;
  title: string;
  section: string;
}

export interface AssistantReply {
  response: string;
  sources: Source[];
  mode: ChatMode;
}

export interface AssistantInput {
  /** Lower-case wallet address of the caller. */
  wallet: string;
  message: string;
  /** Earlier messages of the session, oldest first. */
  history: { role: "user" | "assistant"; content: string }[];
}

export interface Assistant {
  reply(input: AssistantInput): Promise<AssistantReply>;
}

const HISTORY_MESSAGES = 10;
const HISTORY_MESSAGE_CHARS = 2_000;

function dedupeSources(passages: Passage[]): Source[] {
  const seen = new Set<string>();
  const sources: Source[] = [];
  for (const p of passages) {
    const key = `${p.source}\u0000${p.title}\u0000${p.section}`;
    if (seen.has(key)) continue;
    seen.add(key);
    sources.push({ source: p.source, title: p.title, section: p.section });
  }
  return sources;
}

const MODE_GUIDANCE: Record<ChatMode, string> = {
  rag: "Answer the protocol question from the documentation passages and live facts.",
  emissions: "The user asks about their pod emissions (rewards). Give the claimable amounts from the live facts exactly and explain how to claim.",
  minting: "The user wants to mint a pod from a social post. Explain the flow and whether their post URL is valid, per the facts.",
  "subnet-creation": "The user proposes a datanet (subnet). Report each field's check against the draft bounds, per the facts, and the next steps.",
};

function llmMessages(mode: ChatMode, context: Passage[], facts: string[], input: AssistantInput): LlmMessage[] {
  const contextText = context
    .map((p, i) => `[${i + 1}] ${p.title} — ${p.section} (${p.source})\n${p.text.slice(0, 1_600)}`)
    .join("\n\n");
  const system = [
    "You are the assistant of a curated-data market on Base: datanets, pods minted as NFTs, veCORE-weighted votes per epoch, per-epoch emissions.",
    `Mode: ${mode}. ${MODE_GUIDANCE[mode]}`,
    "Answer in concise Markdown using only the context and facts below; cite passages as [n]. If the answer is not there, say so.",
    "Never invent amounts, epochs or durations: quote them from the facts exactly.",
    facts.length > 0 ? `Facts (computed by the server, exact):\n- ${facts.join("\n- ")}` : "Facts: none.",
    contextText ? `Context:\n${contextText}` : "Context: none found.",
  ].join("\n\n");
  const history = input.history.slice(-HISTORY_MESSAGES).map((m) => ({
    role: m.role,
    content: m.content.slice(0, HISTORY_MESSAGE_CHARS),
  }));
  return [{ role: "system", content: system }, ...history, { role: "user", content: input.message }];
}

/**
 * Picks the mode, retrieves documentation passages and live records, and answers: with the LLM
 * when configured (falling back to the built-in composer when it fails), else with the composer.
 */
export function createAssistant(options: {
  knowledge: KnowledgeBase;
  llm: Llm | undefined;
  live: LiveStateDeps;
  logger?: Logger;
}): Assistant {
  return {
    async reply(input) {
      const mode = classifyMode(input.message);
      const live = await gatherLiveState(options.live, input.wallet, mode);
      const records = liveRecords(live);
      const passages = options.knowledge.search(input.message, 4);
      const liveHits = searchLiveRecords(records, input.message, 3);
      const composition = compose({ mode, message: input.message, passages, live, liveHits });

      if (options.llm) {
        const usedIds = new Set(composition.used.map((p) => p.id));
        const context = [
          ...composition.used.map((p) => records.find((r) => r.id === p.id) ?? p).filter((p) => p.text),
          ...liveHits.filter((p) => !usedIds.has(p.id)),
          ...passages.filter((p) => !usedIds.has(p.id)),
        ];
        try {
          const response = await options.llm.complete(llmMessages(mode, context, composition.facts, input));
          return { response, sources: dedupeSources(context), mode };
        } catch (error) {
          options.logger?.warn({ err: error }, "LLM answer failed; using the built-in composer");
        }
      }
      return { response: composition.response, sources: dedupeSources(composition.used), mode };
    },
  };
}
