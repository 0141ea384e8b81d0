import { parseJsonObject } from "./llm";

/** The datanet create-draft fields and their bounds (spec §4.3 and §8). */
export const DATANET_DRAFT_FIELDS = [
  { key: "subnetCreatorType", label: "creator type", rule: "`individual` or `team`" },
  { key: "subnetName", label: "name", rule: "1 to 100 characters" },
  { key: "subnetDescription", label: "description", rule: "10 to 500 characters" },
  { key: "onboardingPublishers", label: "onboarding text for publishers", rule: "10 to 1000 characters" },
  { key: "onboardingVoters", label: "onboarding text for voters", rule: "10 to 1000 characters" },
  { key: "subnetGoal", label: "goal", rule: "1 to 100 characters" },
  { key: "nativeTokenAddress", label: "primary token address", rule: "a 0x-prefixed 40-hex-digit address" },
  { key: "nativeTokenSymbol", label: "token symbol", rule: "1 to 5 characters" },
  { key: "nativeTokenDecimals", label: "token decimals", rule: "an integer from 1 to 18" },
] as const;

export type DraftFieldKey = (typeof DATANET_DRAFT_FIELDS)[number]["key"];

const ALIASES: Record<DraftFieldKey, string[]> = {
  subnetCreatorType: ["subnetcreatortype", "creator type", "creatortype", "creator"],
  subnetName: ["subnetname", "datanet name", "subnet name", "name", "title"],
  subnetDescription: ["subnetdescription", "datanet description", "subnet description", "description"],
  onboardingPublishers: ["onboardingpublishers", "onboarding publishers", "publisher onboarding", "publishers"],
  onboardingVoters: ["onboardingvoters", "onboarding voters", "voter onboarding", "voters"],
  subnetGoal: ["subnetgoal", "goal"],
  nativeTokenAddress: ["nativetokenaddress", "token address", "primary token address", "primary token", "native token"],
  nativeTokenSymbol: ["nativetokensymbol", "token symbol", "symbol", "ticker"],
  nativeTokenDecimals: ["nativetokendecimals", "token decimals", "decimals"],
};

const aliasToKey = new Map<string, DraftFieldKey>();
for (const [key, aliases] of Object.entries(ALIASES) as [DraftFieldKey, string[]][]) {
  for (const alias of aliases) aliasToKey.set(alias, key);
}

function stripQuotes(value: string): string {
  return value.trim().replace(/^["'“”‘’`]+|["'“”‘’`]+$/g, "").trim();
}

/**
 * The datanet fields a message proposes: a JSON object in the message, or `field: value` lines
 * (aliases such as "name", "symbol", "decimals" accepted), or "called/named X" for the name. Pure.
 */
export function extractSubnetProposal(message: string): Partial<Record<DraftFieldKey, string>> {
  const proposal: Partial<Record<DraftFieldKey, string>> = {};
  const json = parseJsonObject(message);
  if (json) {
    for (const [name, value] of Object.entries(json)) {
      const key = aliasToKey.get(name.toLowerCase().replace(/[_-]/g, " ").replace(/\s+/g, " ").trim()) ?? aliasToKey.get(name.toLowerCase());
      if (key && (typeof value === "string" || typeof value === "number")) proposal[key] = String(value);
    }
  }
  for (const line of message.split(/\r?\n|;\s*/)) {
    const match = /^\s*[-*•]?\s*([A-Za-z][A-Za-z _-]{1,40}?)\s*[:=]\s*(.+?)\s*,?\s*$/.exec(line);
    if (!match) continue;
    const key = aliasToKey.get(match[1]!.toLowerCase().replace(/[_-]/g, " ").replace(/\s+/g, " ").trim());
    if (key && proposal[key] === undefined) proposal[key] = stripQuotes(match[2]!);
  }
  if (proposal.subnetName === undefined) {
    const named = /\b(?:called|named)\s+["“']([^"”']{1,200})["”']|\b(?:called|named)\s+([A-Z][\w-]*(?:\s+[A-Z][\w-]*){0,5})/.exec(message);
    const name = named?.[1] ?? named?.[2];
    if (name) proposal.subnetName = name.trim();
  }
  return proposal;
}

export interface FieldCheck {
  key: DraftFieldKey;
  label: string;
  rule: string;
  value: string | undefined;
  ok: boolean;
  problem?: string;
}

function problemOf(key: DraftFieldKey, value: string): string | undefined {
  const length = [...value].length;
  const between = (min: number, max: number) =>
    length < min ? `is ${length} characters, under the minimum of ${min}` : length > max ? `is ${length} characters, over the maximum of ${max}` : undefined;
  switch (key) {
    case "subnetCreatorType":
      return value === "individual" || value === "team" ? undefined : "must be `individual` or `team`";
    case "subnetName":
    case "subnetGoal":
      return between(1, 100);
    case "subnetDescription":
      return between(10, 500);
    case "onboardingPublishers":
    case "onboardingVoters":
      return between(10, 1000);
    case "nativeTokenAddress":
      return /^0x[0-9a-fA-F]{40}$/.test(value) ? undefined : "is not a 0x-prefixed 40-hex-digit address";
    case "nativeTokenSymbol":
      return between(1, 5);
    case "nativeTokenDecimals":
      return /^\d+$/.test(value) && Number(value) >= 1 && Number(value) <= 18 ? undefined : "must be an integer from 1 to 18";
  }
}

/** Each draft field checked against its bound; missing fields have `ok: false` and no value. Pure. */
export function checkSubnetProposal(proposal: Partial<Record<DraftFieldKey, string>>): FieldCheck[] {
  return DATANET_DRAFT_FIELDS.map(({ key, label, rule }) => {
    const value = proposal[key];
    if (value === undefined || value.trim() === "") return { key, label, rule, value: undefined, ok: false, problem: "is missing" };
    const problem = problemOf(key, value.trim());
    return problem ? { key, label, rule, value, ok: false, problem } : { key, label, rule, value, ok: true };
  });
}
