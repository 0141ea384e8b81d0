import { toTokenString } from "../../../../chain/units";
import { findPostUrls, parsePostUrl } from "../post-url";
import type { ChatMode } from "./classifier";
import type { Passage, ScoredPassage } from "./knowledge";
import { humanDuration, type LiveState } from "./live-state";
import { checkSubnetProposal, extractSubnetProposal, type FieldCheck } from "./subnet-draft";

export interface ComposeInput {
  mode: ChatMode;
  message: string;
  passages: ScoredPassage[];
  live: LiveState;
  liveHits: ScoredPassage[];
}

export interface Composition {
  /** Markdown answer. */
  response: string;
  /** What the answer used, in order. */
  used: Passage[];
  /** Facts worked out for the mode (handed to the LLM when one is configured). */
  facts: string[];
}

const EPOCH_LENGTH_QUESTION = /\bepochs?\b[\s\S]*\b(long|length|duration|last|lasts|hours?|days?|seconds?)\b|\b(how long|length|duration)\b[\s\S]*\bepochs?\b/i;

/** Markdown table rows become "cell, cell, cell;" and separator rows go. */
function untable(text: string): string {
  return text
    .split("\n")
    .filter((line) => !/^\s*\|?\s*:?-{3,}/.test(line))
    .map((line) =>
      /^\s*\|/.test(line)
        ? `${line
            .trim()
            .replace(/^\||\|$/g, "")
            .split("|")
            .map((cell) => cell.trim())
            .filter(Boolean)
            .join(", ")};`
        : line,
    )
    .join("\n");
}

function excerpt(text: string, max = 420): string {
  const flat = untable(text).replace(/\s+/g, " ").trim();
  if (flat.length <= max) return flat;
  const cut = flat.slice(0, max);
  const stop = Math.max(cut.lastIndexOf(". "), cut.lastIndexOf("; "));
  return `${stop > max * 0.5 ? cut.slice(0, stop + 1) : cut.trimEnd()}…`;
}

function cite(p: Passage): string {
  return p.section && p.section !== p.title ? `${p.title} — ${p.section}` : p.title;
}

function passageSummary(passages: ScoredPassage[], max = 3): string[] {
  return passages.slice(0, max).map((p) => `**${cite(p)}**: ${excerpt(p.text)}`);
}

function statsRecord(live: LiveState): Passage | undefined {
  return live.stats
    ? { id: "live:stats#epoch", source: "live:stats", title: "Network stats (/stats)", section: "epochLengthSeconds", text: "" }
    : undefined;
}

function epochFacts(live: LiveState): string[] {
  const stats = live.stats;
  if (!stats) return [];
  const facts = [
    `An epoch lasts ${humanDuration(stats.epochLengthSeconds)} (epochLengthSeconds = ${stats.epochLengthSeconds} in the live /stats).`,
  ];
  if (stats.currentEpoch !== null) {
    facts.push(
      `The current epoch is ${stats.currentEpoch}${stats.currentEpochEndsAt ? ` and it ends at ${stats.currentEpochEndsAt}` : ""}.`,
    );
  }
  return facts;
}

function composeRag(input: ComposeInput): Composition {
  const used: Passage[] = [];
  const lines: string[] = [];
  const facts: string[] = [];
  if (EPOCH_LENGTH_QUESTION.test(input.message) && input.live.stats) {
    const stats = input.live.stats;
    const [first, ...rest] = epochFacts(input.live);
    facts.push(first!, ...rest);
    lines.push(
      `An epoch lasts **${humanDuration(stats.epochLengthSeconds)}** (\`epochLengthSeconds\` = ${stats.epochLengthSeconds} in the live network stats).`,
    );
    if (rest.length > 0) lines.push(rest.join(" "));
    lines.push("Votes are counted per epoch, and a pod's emissions for an epoch become claimable once that epoch has closed.");
    used.push(statsRecord(input.live)!);
    const doc = input.passages.find((p) => /epoch/i.test(p.text));
    if (doc) used.push(doc);
    return { response: lines.join("\n\n"), used, facts };
  }

  const live = input.liveHits.slice(0, 2);
  const docs = input.passages.slice(0, 3);
  if (docs.length === 0 && live.length === 0) {
    return {
      response:
        "I could not find this in the protocol documentation. I can answer questions about datanets, pods, votes, epochs, emissions and the chat server's routes, help you check a datanet proposal, validate a post URL for minting, or tell you what your pods can claim.",
      used: [],
      facts,
    };
  }
  if (live.length > 0) {
    lines.push("From the live protocol state:");
    for (const record of live) lines.push(`- ${record.text}`);
    facts.push(...live.map((r) => r.text));
  }
  if (docs.length > 0) {
    lines.push(live.length > 0 ? "From the documentation:" : "Here is what the documentation says:");
    lines.push(...passageSummary(docs).map((line) => `- ${line}`));
  }
  used.push(...live, ...docs);
  return { response: lines.join("\n\n"), used, facts };
}

function composeEmissions(input: ComposeInput): Composition {
  const { live } = input;
  const lines: string[] = [];
  const facts: string[] = [];
  const used: Passage[] = [];
  const emissionsRecord: Passage = {
    id: "live:emissions#wallet",
    source: "live:emissions",
    title: "Your claimable emissions",
    section: "totalClaimable",
    text: "",
  };
  if (live.emissions && live.emissions.pods.length > 0) {
    const { totalCORE, totalPrimary, pods } = live.emissions;
    const paying = pods.filter((p) => p.claimableCORE > 0n || p.claimablePrimary > 0n);
    used.push(emissionsRecord);
    if (paying.length > 0) {
      const primary = totalPrimary > 0n ? ` plus ${toTokenString(totalPrimary)} of the datanets' primary tokens` : "";
      const summary = `You can claim **${toTokenString(totalCORE)} CORE**${primary} across ${paying.length} of your ${pods.length} pod${pods.length === 1 ? "" : "s"}.`;
      lines.push(summary);
      facts.push(summary.replace(/\*\*/g, ""));
      for (const pod of paying) {
        const line = `Pod #${pod.podId}: ${toTokenString(pod.claimableCORE)} CORE from epoch${pod.dueEpochs.length === 1 ? "" : "s"} ${pod.dueEpochs.join(", ")}${pod.moreEpochsAvailable ? " (more epochs after these)" : ""}`;
        lines.push(`- ${line} — claim with \`POST /pods/${pod.podId}/emissions/claim\`.`);
        facts.push(line);
      }
      lines.push("The chat server sends one claim transaction per epoch and pays the gas; the CORE goes to your wallet.");
    } else {
      const text = `Nothing is claimable right now for your ${pods.length} pod${pods.length === 1 ? "" : "s"}.`;
      lines.push(text);
      facts.push(text);
      lines.push("A pod earns for an epoch when it receives net up-votes in it; the owner's half becomes claimable once the epoch closes.");
    }
  } else if ((live.pods && live.pods.length === 0) || live.emissions?.pods.length === 0) {
    const text = "Your wallet owns no pods yet, so there is nothing to claim.";
    lines.push(`${text} Mint one from a post with \`POST /pods/mint\`.`);
    facts.push(text);
    used.push({ id: "live:pods#wallet", source: "live:pods", title: "Your pods", section: "owned pods", text: "" });
  } else {
    lines.push("I cannot read your claimable emissions right now (the chain or the indexer is unavailable). Try `GET /pods/{podId}/emissions` in a moment.");
  }
  if (live.stats) {
    const fact = epochFacts(live)[0]!;
    lines.push(fact);
    facts.push(fact);
    used.push(statsRecord(live)!);
  }
  const doc = input.passages.find((p) => /emission|claim/i.test(p.text));
  if (doc) {
    lines.push(`From the documentation — **${cite(doc)}**: ${excerpt(doc.text, 300)}`);
    used.push(doc);
  }
  return { response: lines.join("\n\n"), used, facts };
}

function composeMinting(input: ComposeInput): Composition {
  const lines: string[] = [];
  const facts: string[] = [];
  const used: Passage[] = [];
  const urls = findPostUrls(input.message);
  for (const url of urls) {
    const result = parsePostUrl(url);
    if (result.ok) {
      const { post } = result;
      const line = `\`${url}\` is a valid post URL (post ${post.statusId}${post.username ? ` by @${post.username}` : ""}).`;
      lines.push(`${line} To mint it, call \`POST /pods/mint\` with \`{"tweetUrl": "${post.canonicalUrl}"}\`.`);
      facts.push(line.replace(/`/g, ""));
    } else {
      const line = `\`${url}\` cannot be minted: ${result.reason}.`;
      lines.push(`${line} A post URL looks like \`https://x.com/<handle>/status/<id>\`.`);
      facts.push(line.replace(/`/g, ""));
    }
  }
  if (urls.length === 0) {
    lines.push("To mint a pod from a post, call `POST /pods/mint` with the post's URL (`https://x.com/<handle>/status/<id>` or twitter.com).");
  }
  lines.push(
    "The server fetches the post, runs the low-quality (\"slop\") check unless you set `skipSlopCheck` (pods minted unchecked may fail to earn if flagged later), writes a title (at most 80 characters; yours if you pass `title`), a description and a category, then its wallet mints the pod on-chain with `mintPodWithCORE` — it pays the datanet's publishing fee and gas, and the pod belongs to your wallet.",
  );
  const subnets = input.live.subnets ?? [];
  if (subnets.length > 0) {
    const list = subnets.slice(0, 10).map((d) => `${d.name} (id ${d.id}, fee ${toTokenString(d.publishingFeeCORE)} CORE)`).join("; ");
    lines.push(`Pass \`subnetHint\` (a datanet name or id) to choose the datanet; otherwise the best match for the post is used. Datanets: ${list}.`);
    facts.push(`Datanets: ${list}.`);
    used.push({ id: "live:datanets", source: "live:datanets", title: "Datanets", section: "publishing fees", text: "" });
  }
  const doc = input.passages.find((p) => /mint/i.test(p.text));
  if (doc) used.push(doc);
  return { response: lines.join("\n\n"), used, facts };
}

function describeCheck(check: FieldCheck): string {
  if (check.ok) return `- ✅ ${check.label} (\`${check.key}\`): "${check.value}"`;
  if (check.value === undefined) return `- ⬜ ${check.label} (\`${check.key}\`) is missing — ${check.rule}`;
  return `- ❌ ${check.label} (\`${check.key}\`) ${check.problem} — ${check.rule}`;
}

function composeSubnetCreation(input: ComposeInput): Composition {
  const checks = checkSubnetProposal(extractSubnetProposal(input.message));
  const given = checks.filter((c) => c.value !== undefined);
  const invalid = given.filter((c) => !c.ok);
  const missing = checks.filter((c) => c.value === undefined);
  const lines: string[] = [];
  const facts: string[] = [];
  if (given.length === 0) {
    lines.push("Here is what a datanet draft needs (`POST /me/subnets` on the Platform API):");
    lines.push(...checks.map((c) => `- ${c.label} (\`${c.key}\`): ${c.rule}`));
    lines.push("Send me your proposal as `field: value` lines (or JSON) and I will check it against these bounds.");
    facts.push("No datanet fields were proposed yet.");
  } else {
    const verdict =
      invalid.length === 0 && missing.length === 0
        ? "Your datanet proposal fits every draft bound."
        : invalid.length === 0
          ? `The fields you gave fit the draft bounds; ${missing.length} required field${missing.length === 1 ? " is" : "s are"} still missing.`
          : `${invalid.length} field${invalid.length === 1 ? " does" : "s do"} not fit the draft bounds.`;
    lines.push(verdict);
    lines.push(...checks.map(describeCheck));
    facts.push(verdict, ...checks.map((c) => describeCheck(c).replace(/^- \S+ /, "")));
  }
  const fee = input.live.stats?.subnetCreationFeeCORE;
  lines.push(
    `Next steps: create the draft with \`POST /me/subnets\`, publish it on-chain (SubnetManager \`publishSubnet\`${fee ? `, creation fee ${fee} CORE` : ""}), then record it with \`POST /me/subnets/{id}/publish\` and the transaction hash.`,
  );
  const used: Passage[] = [];
  const doc = input.passages.find((p) => /datanet|subnet/i.test(p.text));
  if (doc) used.push(doc);
  if (fee) used.push({ id: "live:stats#fees", source: "live:stats", title: "Network stats (/stats)", section: "subnetCreationFee", text: "" });
  return { response: lines.join("\n"), used, facts };
}

/** The built-in composer: answers from retrieved passages and live figures, without a model. Pure. */
export function compose(input: ComposeInput): Composition {
  switch (input.mode) {
    case "emissions":
      return composeEmissions(input);
    case "minting":
      return composeMinting(input);
    case "subnet-creation":
      return composeSubnetCreation(input);
    default:
      return composeRag(input);
  }
}
