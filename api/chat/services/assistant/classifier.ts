import { findPostUrls, parsePostUrl } from "../post-url";

export const CHAT_MODES = ["rag", "subnet-creation", "minting", "emissions"] as const;
export type ChatMode = (typeof CHAT_MODES)[number];

type Rule = { pattern: RegExp; weight: number };

/**
 * Weighted cues per mode. A message's score for a mode is the sum of the weights of the cues it
 * contains; the highest score of at least 2 wins (ties: minting, then subnet-creation, then
 * emissions), otherwise the mode is `rag` (a documentation question).
 */
export const MODE_RULES: Record<Exclude<ChatMode, "rag">, Rule[]> = {
  minting: [
    { pattern: /\bmint(s|ing|ed)?\b/i, weight: 2 },
    { pattern: /\b(tweets?|x\.com|twitter\.com|x post|social[- ]post|post url|post link)\b/i, weight: 1 },
    { pattern: /\b(slop|quality check|skipSlopCheck|tweetUrl)\b/i, weight: 1 },
    { pattern: /\b(publish|turn|make)\b.{0,30}\b(post|tweet)\b.{0,30}\b(into|as)\b.{0,10}\bpod\b/i, weight: 2 },
  ],
  "subnet-creation": [
    {
      pattern: /\b(create|creating|launch|launching|start|starting|set\s*up|setting\s*up|propose|proposing|register|open|build)\b.{0,40}\b(datanet|subnet)s?\b/i,
      weight: 3,
    },
    { pattern: /\b(new|my own|our own)\s+(datanet|subnet)\b/i, weight: 2 },
    {
      pattern: /\b(subnetName|subnetDescription|onboardingPublishers|onboardingVoters|subnetGoal|nativeTokenSymbol|nativeTokenDecimals|nativeTokenAddress|subnetCreatorType)\b/,
      weight: 2,
    },
    { pattern: /\b(datanet|subnet)\s+(name|description|goal|draft|proposal)\b/i, weight: 1 },
    { pattern: /\b(token symbol|decimals|onboarding)\b/i, weight: 1 },
  ],
  emissions: [
    { pattern: /\bclaim(s|ing|able|ed)?\b/i, weight: 2 },
    { pattern: /\bemissions?\b/i, weight: 2 },
    { pattern: /\b(rewards?|earnings?|earned|earn|payouts?|paid out|owed|unclaimed)\b/i, weight: 1 },
  ],
};

const TIE_ORDER: Exclude<ChatMode, "rag">[] = ["minting", "subnet-creation", "emissions"];

export function modeScores(message: string): Record<Exclude<ChatMode, "rag">, number> {
  const scores = { minting: 0, "subnet-creation": 0, emissions: 0 };
  for (const mode of TIE_ORDER) {
    for (const rule of MODE_RULES[mode]) if (rule.pattern.test(message)) scores[mode] += rule.weight;
  }
  // A post URL in the message is the strongest minting cue (valid or not: minting mode explains why).
  if (findPostUrls(message).some((url) => parsePostUrl(url).ok || /\b(x|twitter)\.com\b/i.test(url))) {
    scores.minting += 3;
  }
  return scores;
}

/** Picks the assistant's mode from the message alone (the caller cannot set it). Pure. */
export function classifyMode(message: string): ChatMode {
  const scores = modeScores(message);
  let best: ChatMode = "rag";
  let bestScore = 1;
  for (const mode of TIE_ORDER) {
    if (scores[mode] > bestScore) {
      best = mode;
      bestScore = scores[mode];
    }
  }
  return best;
}
