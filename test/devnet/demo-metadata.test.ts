/**
 * The demo-metadata step of `npm start` (devnet/demo-metadata.ts) against the real stack: a seeded
 * devnet, a fresh database, the indexer and the platform app served over HTTP, so the step goes
 * through the same routes, cookie checks and on-chain verification as any client.
 */
import { formatEther } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { IDP_COOKIE, localIdpKeyPair, signLocalIdpToken } from "../../api/http/auth/idp-cookie";
import { describeDemoMetadata, publishDemoMetadata, type DemoMetadataResult } from "../../devnet/demo-metadata";
import type { SeedSummary } from "../../devnet/seed";
import type { Devnet } from "../support/chain";
import { startSeededStack, type SeededStack } from "../support/seeded-stack";

let stack: SeededStack;
let keyFile: string;
let devnet: Devnet;
let platformUrl: string;
let seed: SeedSummary;

beforeAll(async () => {
  stack = await startSeededStack({ name: "demo-metadata" });
  ({ keyFile, devnet, platformUrl } = stack);
  seed = devnet.seed!;
}, 180_000);

afterAll(async () => {
  await stack?.stop();
});

async function get(urlPath: string, cookie?: string): Promise<any> {
  const response = await fetch(`${platformUrl}/api/v1${urlPath}`, { headers: cookie ? { Cookie: cookie } : {} });
  expect(response.status, urlPath).toBe(200);
  return ((await response.json()) as { data: unknown }).data;
}

const publicSubnets = async () => (await get("/public/subnets?limit=100")).subnets as any[];
const publicPods = async () => (await get("/public/pods?limit=100")).pods as any[];

/** Vote volume on chain, whole CORE: per pod over all epochs, and per datanet by the datanet each vote counted for. */
async function chainVolumes() {
  const p = devnet.protocol;
  const pods = new Map<number, { up: bigint; down: bigint }>();
  const subnets = new Map<number, { up: bigint; down: bigint }>();
  for (const { tokenId } of seed.seeded.subnets) subnets.set(tokenId, { up: 0n, down: 0n });
  for (const { tokenId } of seed.seeded.pods) {
    const pod = { up: 0n, down: 0n };
    for (let epoch = 1n; epoch < BigInt(seed.finalEpoch); epoch++) {
      const [up, down, subnet] = await Promise.all([
        p.read<bigint>("PodManager", "podUpVotes", [BigInt(tokenId), epoch]),
        p.read<bigint>("PodManager", "podDownVotes", [BigInt(tokenId), epoch]),
        p.read<bigint>("PodManager", "podEpochSubnet", [BigInt(tokenId), epoch]),
      ]);
      pod.up += up;
      pod.down += down;
      const s = subnets.get(Number(subnet));
      if (s) {
        s.up += up;
        s.down += down;
      }
    }
    pods.set(tokenId, pod);
  }
  const whole = (v: { up: bigint; down: bigint }) => ({ up: Number(formatEther(v.up)), down: Number(formatEther(v.down)) });
  return {
    pods: new Map([...pods].map(([id, v]) => [id, whole(v)])),
    subnets: new Map([...subnets].map(([id, v]) => [id, whole(v)])),
  };
}

describe("publishDemoMetadata", () => {
  let first: DemoMetadataResult;

  it("reports the seeded transactions: 3 datanets, 4 pods, one minted by the server wallet", () => {
    expect(seed.seeded.subnets.map((s) => [s.tokenId, s.owner])).toEqual([
      [1, "curatorA"],
      [2, "curatorB"],
      [3, "curatorA"],
    ]);
    expect(seed.seeded.pods.map((p) => [p.tokenId, p.sender, p.owner, p.subnetTokenId])).toEqual([
      [1, "curatorB", "curatorB", 1],
      [2, "voter1", "voter1", 1],
      [3, "curatorA", "curatorA", 2],
      [4, "serverWallet", "voter2", 1],
    ]);
    expect(seed.seeded.pods[0]!.republishes).toEqual([{ subnetTokenId: 2, txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/) }]);
    for (const hash of [...seed.seeded.subnets.map((s) => s.publishTxHash), ...seed.seeded.pods.map((p) => p.mintTxHash)]) {
      expect(hash).toMatch(/^0x[0-9a-f]{64}$/);
    }
  });

  it("links the seeded datanets and the owner-minted pods through the API; skips the pod minted for voter2", async () => {
    expect(await publicSubnets()).toEqual([]);
    expect(await publicPods()).toEqual([]);

    first = await publishDemoMetadata({ platformUrl, summary: seed, idpKeyFile: keyFile });
    expect(first.subnets.map((s) => [s.tokenId, s.status])).toEqual([
      [1, "linked"],
      [2, "linked"],
      [3, "linked"],
    ]);
    expect(first.pods.map((p) => [p.tokenId, p.status])).toEqual([
      [1, "linked"],
      [2, "linked"],
      [3, "linked"],
      [4, "skipped"],
    ]);
    expect(describeDemoMetadata(first)).toMatch(/^3 datanets and 3 pods got metadata; pod 4 skipped \(minted by serverWallet for voter2/);
  });

  it("lists the datanets with their names, on-chain fees and vote volumes", async () => {
    const volumes = await chainVolumes();
    const subnets = await publicSubnets();
    expect(subnets.map((s) => [s.tokenId, s.subnetName, s.status])).toEqual([
      [3, "Climate data", "active"],
      [2, "AI datasets", "active"],
      [1, "Onchain research", "active"],
    ]);
    for (const subnet of subnets) {
      const chain = volumes.subnets.get(subnet.tokenId)!;
      expect([subnet.upVoteVolume, subnet.downVoteVolume], `datanet ${subnet.tokenId}`).toEqual([chain.up, chain.down]);
      expect(subnet.nativeTokenAddress).toBe(seed.seeded.primaryToken.address.toLowerCase());
      expect(subnet.nativeTokenSymbol).toBe("DATA");
    }
    const research = subnets.find((s) => s.tokenId === 1);
    // the seed's numbers: pod 1 (epoch 1), pods 2 and 4 voted while in the research datanet
    expect(research).toMatchObject({ upVoteVolume: 810, downVoteVolume: 120, accessFeeCORE: 10, emissionsPerEpochCORE: 1000 });
  });

  it("lists the pods with their names, creators, datanets and vote volumes; pod 4 stays chain-only", async () => {
    const volumes = await chainVolumes();
    const subnets = new Map((await publicSubnets()).map((s) => [s.tokenId as number, s.id as string]));
    const pods = await publicPods();
    expect(pods.map((p) => [p.tokenId, p.name, p.creator.username])).toEqual([
      [3, "Open instruction-tuning corpus v2", "curatorA"],
      [2, "Stablecoin flows between L2s, 2024", "voter1"],
      [1, "MEV on Base: a measurement study", "curatorB"],
    ]);
    for (const pod of pods) {
      const chain = volumes.pods.get(pod.tokenId)!;
      expect([pod.cumulativeUpVotesVolume, pod.cumulativeDownVotesVolume], `pod ${pod.tokenId}`).toEqual([chain.up, chain.down]);
      expect(pod.url).toMatch(/^https:\/\/example\.org\//);
    }
    expect(pods.find((p) => p.tokenId === 1)).toMatchObject({ cumulativeUpVotesVolume: 600, cumulativeDownVotesVolume: 20 });
    // pod 1 was republished into the datasets datanet: its datanet follows the recorded republish
    expect(pods.find((p) => p.tokenId === 1).privateSubnetId).toBe(subnets.get(2));
    expect(pods.find((p) => p.tokenId === 2).privateSubnetId).toBe(subnets.get(1));
    const inDatasets = (await get("/public/pods?filters[subnet]=2")).pods.map((p: { tokenId: number }) => p.tokenId);
    expect(inDatasets).toEqual([3, 1]);
    const missing = await fetch(`${platformUrl}/api/v1/public/pods/4`);
    expect(missing.status).toBe(404);
  });

  it("changes nothing when run again", async () => {
    const before = { subnets: await publicSubnets(), pods: await publicPods() };
    const second = await publishDemoMetadata({ platformUrl, summary: seed, idpKeyFile: keyFile });
    expect([...second.subnets, ...second.pods].map((item) => [item.tokenId, item.status])).toEqual([
      [1, "existing"],
      [2, "existing"],
      [3, "existing"],
      [1, "existing"],
      [2, "existing"],
      [3, "existing"],
      [4, "skipped"],
    ]);
    expect(second.subnets.map((s) => s.id)).toEqual(first.subnets.map((s) => s.id));
    expect(second.pods.map((p) => p.id)).toEqual(first.pods.map((p) => p.id));
    expect({ subnets: await publicSubnets(), pods: await publicPods() }).toEqual(before);
    // no stray drafts either
    const { privateJwk } = await localIdpKeyPair(keyFile);
    const cookie = `${IDP_COOKIE}=${await signLocalIdpToken(
      { sub: "demo-curatorA", wallet: seed.seeded.subnets[0]!.ownerAddress, username: "curatorA" },
      { privateJwk },
    )}`;
    expect((await get("/me/subnets", cookie)).subnets).toHaveLength(2);
    expect((await get("/me/pods", cookie)).pods).toHaveLength(1);
  });
});
