import OpenAI from "openai";
import type { LlmConfig } from "../../config";

export interface LlmMessage {
  role: "system" | "user" | "assistant";
  content: string;
}

/** An OpenAI-compatible chat-completions endpoint. */
export interface Llm {
  readonly model: string;
  /** The first choice's text; throws when the endpoint fails or answers nothing. */
  complete(messages: LlmMessage[], options?: { maxTokens?: number; temperature?: number }): Promise<string>;
}

export function createLlm(config: LlmConfig): Llm {
  const client = new OpenAI({
    baseURL: config.baseUrl,
    apiKey: config.apiKey,
    timeout: config.timeoutMs,
    maxRetries: 1,
  });
  return {
    model: config.model,
    async complete(messages, options = {}) {
      const completion = await client.chat.completions.create({
        model: config.model,
        messages,
        temperature: options.temperature ?? 0.2,
        max_tokens: options.maxTokens ?? 800,
      });
      const text = completion.choices[0]?.message?.content;
      if (typeof text !== "string" || text.trim() === "") throw new Error("the model returned no text");
      return text.trim();
    },
  };
}

/** The first JSON object in a model's answer (models often wrap JSON in prose or code fences). */
export function parseJsonObject(text: string): Record<string, unknown> | undefined {
  const start = text.indexOf("{");
  const end = text.lastIndexOf("}");
  if (start < 0 || end <= start) return undefined;
  try {
    const value: unknown = JSON.parse(text.slice(start, end + 1));
    return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
