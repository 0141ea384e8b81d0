import type { Logger } from "pino";
import type { FetchedPost } from "./post-fetcher";
import { parseJsonObject, type Llm } from "./assistant/llm";

export interface PodMetadata {
  /** At most 80 characters (spec §8). */
  title: string;
  /** 10 to 200 characters (the pod-draft bound of spec §8). */
  description: string;
  /** 2 to 50 characters. */
  category: string;
}

export const TITLE_MAX = 80;
export const DESCRIPTION_MIN = 10;
export const DESCRIPTION_MAX = 200;

/** Categories the built-in generator picks from, by keyword hits; "General" when none hits. */
export const CATEGORY_KEYWORDS: [string, RegExp][] = [
  ["AI", /\b(ai|a\.i\.|llms?|gpt\w*|machine learning|ml|neural|models?|agents?|transformers?|datasets?|inference|training)\b/gi],
  ["Crypto", /\b(crypto|blockchain|ethereum|eth|bitcoin|btc|defi|on-?chain|tokens?|nfts?|web3|base|l2|rollups?|wallets?|staking)\b/gi],
  ["Research", /\b(paper|study|studies|research|arxiv|preprint|findings|experiments?|peer[- ]review|survey)\b/gi],
  ["Science", /\b(physics|biology|chemistry|space|nasa|climate|astronomy|genome|quantum|telescope)\b/gi],
  ["Technology", /\b(software|code|coding|programming|developers?|open[- ]source|github|apps?|api|database|rust|typescript)\b/gi],
  ["Finance", /\b(markets?|stocks?|economy|inflation|rates|fed|investing|investors?|earnings|bonds?)\b/gi],
  ["Health", /\b(health|medical|medicine|disease|vaccines?|fitness|nutrition|clinical)\b/gi],
  ["Sports", /\b(game|match|league|goals?|nba|nfl|football|soccer|tennis|olympics?)\b/gi],
  ["Culture", /\b(art|music|film|movies?|books?|culture|poetry|design|photography)\b/gi],
  ["News", /\b(breaking|announced|announces|report|reports|today|election|government|policy)\b/gi],
];

const URLS = /\bhttps?:\/\/\S+|\bpic\.(twitter|x)\.com\/\S+/gi;

function clean(text: string): string {
  return text.replace(URLS, " ").replace(/\s+/g, " ").trim();
}

/** Cuts at a word boundary and adds an ellipsis when `text` is longer than `max`. */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max - 1);
  const space = cut.lastIndexOf(" ");
  return `${(space > max * 0.6 ? cut.slice(0, space) : cut).replace(/[\s,;:.-]+$/, "")}…`;
}

export function categorize(text: string): string {
  let best = "General";
  let bestHits = 0;
  for (const [category, pattern] of CATEGORY_KEYWORDS) {
    const hits = text.match(pattern)?.length ?? 0;
    if (hits > bestHits) {
      best = category;
      bestHits = hits;
    }
  }
  return best;
}

function byline(post: FetchedPost): string {
  return post.authorHandle ? `@${post.authorHandle}` : post.authorName ?? "an X user";
}

/** Deterministic title, description and category from the post's text. Pure. */
export function builtinMetadata(post: FetchedPost, title?: string): PodMetadata {
  const text = clean(post.text);
  const firstSentence = /^(.{8,}?[.!?])(\s|$)/.exec(text)?.[1] ?? text.split("\n")[0] ?? text;
  let generatedTitle = clip(firstSentence, TITLE_MAX);
  if (generatedTitle.length < 3) generatedTitle = clip(`Post by ${byline(post)}`, TITLE_MAX);

  let description = clip(text, DESCRIPTION_MAX);
  if (description.length < DESCRIPTION_MIN) description = clip(`Post by ${byline(post)} on X: ${text}`.trim(), DESCRIPTION_MAX);
  if (description.length < DESCRIPTION_MIN) description = `Post ${post.statusId} on X`;
  return { title: title ?? generatedTitle, description, category: categorize(text) };
}

const LLM_METADATA_PROMPT = `You write catalogue metadata for a social-media post that is being minted as a "pod" in a curated data market.
Answer with one JSON object only: {"title": "...", "description": "...", "category": "..."}.
title: at most 80 characters, no quotes, no hashtags. description: 10 to 200 characters, neutral summary.
category: one or two words, e.g. AI, Crypto, Research, Science, Technology, Finance, News, Health, Sports, Culture, General.`;

/**
 * Title (the caller's when given), description and category: from the LLM when configured, each
 * field checked against its bounds and replaced by the built-in value when out of bounds or when
 * the LLM fails.
 */
export async function generateMetadata(
  post: FetchedPost,
  options: { title?: string; llm?: Llm; logger?: Logger },
): Promise<PodMetadata> {
  const builtin = builtinMetadata(post, options.title);
  if (!options.llm) return builtin;
  try {
    const answer = await options.llm.complete(
      [
        { role: "system", content: LLM_METADATA_PROMPT },
        { role: "user", content: `Post by ${byline(post)}:\n"""\n${post.text.slice(0, 4000)}\n"""` },
      ],
      { maxTokens: 300 },
    );
    const json = parseJsonObject(answer) ?? {};
    const str = (value: unknown) => (typeof value === "string" ? value.replace(/\s+/g, " ").trim() : "");
    const title = str(json.title);
    const description = str(json.description);
    const category = str(json.category);
    return {
      title: options.title ?? (title.length >= 3 && title.length <= TITLE_MAX ? title : builtin.title),
      description:
        description.length >= DESCRIPTION_MIN && description.length <= DESCRIPTION_MAX ? description : builtin.description,
      category: category.length >= 2 && category.length <= 50 ? category : builtin.category,
    };
  } catch (error) {
    options.logger?.warn({ err: error }, "LLM metadata generation failed; using the built-in generator");
    return builtin;
  }
}
