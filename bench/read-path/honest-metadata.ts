/**
 * The honest path's metadata: every datanet and pod of a generated market (bench/chain-gen.ts
 * generateMarket) gets its off-chain metadata through the Platform API as its owner would, with
 * devnet/demo-metadata.ts's steps (the owner's local-IdP cookie, a draft, then the link with the
 * publish or mint transaction, verified on chain by the API). Pod content mirrors data.ts's
 * generated rows (names with the same words, so `search=bravo` matches the same share).
 */
import { createHash } from "node:crypto";
import type { Address } from "viem";
import type { GeneratedMarket, MarketPod } from "../chain-gen";
import { createLinkedPod, linkSubnet, platformSessions, type Client, type PodContent } from "../../devnet/demo-metadata";
import { WORDS } from "./data";

/** The IdP subject of a pod owner (its wallet's index among the market's owners). */
export const ownerSubject = (index: number) => `honest-owner-${index}`;

function podContent(pod: MarketPod): PodContent {
  const n = pod.index + 1;
  const word = WORDS[Math.floor(n / 7) % WORDS.length];
  return {
    podName: `pod ${n} ${word} ${createHash("md5").update(String(n)).digest("hex").slice(0, 16)}`,
    url: `https://example.com/${n}`,
    platform: "web",
    category: "data",
    podDescription: `generated pod ${n}`,
  };
}

/** Runs `work` on every item with at most `concurrency` in flight; the first failure stops the run. */
async function forEachConcurrent<T>(items: T[], concurrency: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
}

export type MetadataResult = { requests: number; seconds: number; sessions: Awaited<ReturnType<typeof platformSessions>> };

export async function publishMarketMetadata(
  platformUrl: string,
  market: GeneratedMarket,
  options: { owners: Address[]; primaryToken: Address; concurrency: number },
): Promise<MetadataResult> {
  const started = performance.now();
  const sessions = await platformSessions(platformUrl);
  let requests = 0;

  // datanets first: a pod draft names its datanet, which must have metadata
  for (const subnet of market.subnets) {
    const owner = await sessions.as(`honest-${subnet.owner}`, subnet.ownerAddress, subnet.owner);
    const result = await linkSubnet(
      owner,
      sessions.anonymous,
      { tokenId: subnet.tokenId, primaryToken: options.primaryToken, publishTxHash: subnet.publishTxHash },
      {
        subnetCreatorType: "team",
        subnetName: `datanet ${subnet.tokenId}`,
        subnetDescription: `generated datanet ${subnet.tokenId}`,
        onboardingPublishers: "one curated item per pod",
        onboardingVoters: "vote on quality",
        subnetGoal: "goal",
        imageURL: `https://example.com/datanets/${subnet.tokenId}.png`,
      },
      { symbol: "DATA", decimals: 18 },
    );
    requests += 4; // me/subnets, public/subnets/{id}, the draft, publish
    if (result.status !== "linked") throw new Error(`datanet ${subnet.tokenId}: ${result.status} ${result.reason ?? ""}`);
  }

  const clients = new Map<string, Client>();
  for (const [i, owner] of options.owners.entries()) clients.set(owner.toLowerCase(), await sessions.as(ownerSubject(i), owner, `owner ${i}`));
  let done = 0;
  let reported = 0;
  await forEachConcurrent(market.pods, options.concurrency, async (pod) => {
    const result = await createLinkedPod(clients.get(pod.owner.toLowerCase())!, pod, podContent(pod));
    if (result.status !== "linked") throw new Error(`pod ${pod.index + 1}: ${result.status} ${result.reason ?? ""}`);
    requests += 2;
    done++;
    if (done - reported >= Math.max(100, market.pods.length / 10)) {
      reported = done;
      const seconds = (performance.now() - started) / 1000;
      console.log(`  metadata: ${done}/${market.pods.length} pods, ${(requests / seconds).toFixed(0)} requests/s`);
    }
  });
  return { requests, seconds: (performance.now() - started) / 1000, sessions };
}
