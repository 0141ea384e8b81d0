import type { Logger } from "pino";
import type { FetchedPost } from "./post-fetcher";
import { parseJsonObject, type Llm } from "./assistant/llm";

export interface SlopVerdict {
  pass: boolean;
  /** Why the post failed (or "ok"); sent to the caller in the 400 body. */
  reason: string;
  method: "heuristic" | "llm" | "duplicate";
}

const URL_PATTERN = /\bhttps?:\/\/\S+|\bpic\.(twitter|x)\.com\/\S+|\bt\.co\/\S+/gi;
const MENTION_OR_TAG = /(^|\s)[@#$][\p{L}\p{N}_]+/gu;
const WORD = /\p{L}[\p{L}\p{N}'’-]*/gu;

/** Known spam patterns; the first that matches names the reason. */
export const SPAM_PATTERNS: { pattern: RegExp; label: string }[] = [
  { pattern: /\b(free|claim(\s+your)?)\s+(airdrop|crypto|nfts?|tokens?|eth|btc|usdt)\b/i, label: "free airdrop / token offer" },
  { pattern: /\bairdrop\b[\s\S]*\b(claim|connect|wallet|eligible)\b/i, label: "airdrop claim" },
  { pattern: /\bconnect\s+your\s+wallet\b|\bwallet\s*drainer\b/i, label: "wallet-connect lure" },
  { pattern: /\b(dm|message|inbox)\s+me\b/i, label: "\"DM me\" solicitation" },
  { pattern: /\bfollow\s*(4|for)\s*follow\b|\bf4f\b|\bfollow\s+back\b|\bfollow\s+me\b/i, label: "follow-for-follow" },
  { pattern: /\bgiveaway\b[\s\S]*\b(retweet|rt|follow|like|tag)\b|\b(retweet|rt|like|tag\s+\d+\s+friends)\b[\s\S]*\bgiveaway\b/i, label: "engagement giveaway" },
  { pattern: /\b\d{2,5}\s*x\s+(gem|pump|returns?|coin|token)|\bnext\s+\d{2,5}x\b|\bto\s+the\s+moon\b/i, label: "pump promise" },
  { pattern: /\bguaranteed\s+(returns?|profits?|income|gains?)\b/i, label: "guaranteed returns" },
  { pattern: /\blink\s+in\s+(my\s+)?bio\b|\bcheck\s+(out\s+)?my\s+(bio|profile)\b/i, label: "link-in-bio promotion" },
  { pattern: /\b(send|deposit)\s+\d+(\.\d+)?\s*(eth|btc|usdt|usdc|sol)\b[\s\S]*\b(get|receive|double)\b/i, label: "send-to-receive scam" },
  { pattern: /\bearn\s+\$?\d[\d,]*\s*(\$|usd|dollars)?\s*(per|a|every)\s+(day|hour|week)\b/i, label: "earn-per-day offer" },
  { pattern: /\b(promo|referral|invite)\s+code\b/i, label: "promo code" },
];

const MIN_WORDS = 3;
const MAX_CHECKED_CHARS = 30_000;
const MAX_CHARACTER_RUN = 9;

/**
 * The documented built-in quality check (docs/chat-server.md): a post fails when
 *  1. it has no text;
 *  2. without links, @mentions, #hashtags and $cashtags it has fewer than 3 words
 *     ("link-only" when it had links or tags, else "too short");
 *  3. a character repeats more than 9 times in a row, fewer than 15% of its characters are
 *     distinct (20 characters or more), or one word makes up over half of 6 or more words;
 *  4. it matches a known spam pattern (SPAM_PATTERNS).
 * Pure; duplicates of existing pods are checked separately against the database.
 */
export function heuristicSlopCheck(text: string): SlopVerdict {
  const fail = (reason: string): SlopVerdict => ({ pass: false, reason, method: "heuristic" });
  // Posts are at most ~25,000 characters; the cap bounds the pattern matching on anything larger.
  const trimmed = text.trim().slice(0, MAX_CHECKED_CHARS);
  if (trimmed === "") return fail("The post has no text");

  const withoutLinks = trimmed.replace(URL_PATTERN, " ").replace(MENTION_OR_TAG, " ");
  const words = withoutLinks.match(WORD) ?? [];
  if (words.length < MIN_WORDS) {
    const hadLinks = withoutLinks.trim().length < trimmed.length;
    return fail(hadLinks ? "The post is only links, mentions or hashtags" : "The post is too short to curate (fewer than 3 words)");
  }

  const compact = trimmed.replace(/\s+/g, "");
  const run = new RegExp(`(.)\\1{${MAX_CHARACTER_RUN},}`, "u").exec(compact);
  if (run) return fail("The post is mostly repeated characters");
  const characters = [...compact];
  if (characters.length >= 20 && new Set(characters.map((ch) => ch.toLowerCase())).size / characters.length < 0.15) {
    return fail("The post is mostly repeated characters");
  }
  if (words.length >= 6) {
    const counts = new Map<string, number>();
    for (const word of words) counts.set(word.toLowerCase(), (counts.get(word.toLowerCase()) ?? 0) + 1);
    if (Math.max(...counts.values()) > words.length / 2) return fail("The post is mostly one repeated word");
  }

  for (const { pattern, label } of SPAM_PATTERNS) {
    if (pattern.test(trimmed)) return fail(`The post matches a known spam pattern (${label})`);
  }
  return { pass: true, reason: "ok", method: "heuristic" };
}

const LLM_SLOP_PROMPT = `You review social-media posts before they are minted as "pods" in a curated data market.
Reject low-quality posts ("slop"): spam, scams, airdrop or giveaway bait, engagement farming, link-only or
empty posts, gibberish, and machine-generated filler with no information. Accept posts with real content
(opinions, news, research, data, creative work), even short ones.
Answer with one JSON object only: {"pass": true|false, "reason": "<one short sentence>"}.`;

export interface SlopChecker {
  check(post: FetchedPost, options: { isDuplicate: boolean }): Promise<SlopVerdict>;
}

/** The LLM when configured (falling back to the heuristic if it fails), else the heuristic. */
export function createSlopChecker(llm: Llm | undefined, logger?: Logger): SlopChecker {
  return {
    async check(post, { isDuplicate }) {
      if (isDuplicate) return { pass: false, reason: "This post has already been minted as a pod", method: "duplicate" };
      if (post.text.trim() === "") return heuristicSlopCheck(post.text);
      if (!llm) return heuristicSlopCheck(post.text);
      try {
        const answer = await llm.complete(
          [
            { role: "system", content: LLM_SLOP_PROMPT },
            {
              role: "user",
              content: `Post by ${post.authorHandle ? `@${post.authorHandle}` : "an unknown author"}:\n"""\n${post.text.slice(0, 4000)}\n"""`,
            },
          ],
          { maxTokens: 120, temperature: 0 },
        );
        const json = parseJsonObject(answer);
        if (!json || typeof json.pass !== "boolean") throw new Error(`unparsable verdict: ${answer.slice(0, 200)}`);
        const reason = typeof json.reason === "string" && json.reason.trim() ? json.reason.trim().slice(0, 300) : "";
        return json.pass
          ? { pass: true, reason: reason || "ok", method: "llm" }
          : { pass: false, reason: reason || "The post was judged low quality", method: "llm" };
      } catch (error) {
        logger?.warn({ err: error }, "LLM slop check failed; using the heuristic");
        return heuristicSlopCheck(post.text);
      }
    },
  };
}
