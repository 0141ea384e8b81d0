/**
 * Moderation: banning a pod invalidates it on chain and hides it from the public lists; pods minted
 * with the slop check skipped are listed for moderators. Service and operator command (`npm run moderate`).
 */
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import type { Account } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeDeployment } from "../../chain/deployments";
import { banPod, listUncheckedPods, ModerationError } from "../../api/platform/services/moderation";
import { PodDraftBodySchema } from "../../api/platform/schemas/drafts";
import { createMintedPod } from "../../api/platform/services/pod-drafts";
import { roleAccount } from "../../devnet/accounts";
import { mintedPod as mintPod } from "./agents-harness";
import { BASE, json, podDraftBody, subnetDraftBody, usePlatformHarness, type Session } from "./harness";

const run = promisify(execFile);
const h = usePlatformHarness({ indexer: true });
const curator = roleAccount("curatorA");
const publisherAccount = roleAccount("curatorB");
const serverWallet = roleAccount("serverWallet");
const chatUser = roleAccount("voter3");
const moderator = roleAccount("deployer");

let owner: Session;
let publisher: Session;
let subnet: { id: string; tokenId: bigint };
const tempDir = fs.mkdtempSync(path.join(os.tmpdir(), "moderation-test-"));

afterAll(() => fs.rmSync(tempDir, { recursive: true, force: true }));

const moderation = () => ({ db: h().store.db, chain: h().runtime.chain(), moderator });

const mintedPod = (name: string) => mintPod(h(), publisher, publisherAccount, subnet, { podName: name });

/** A pod minted by the chat server's wallet for `user`, recorded with the slop check skipped or not. */
async function chatPod(user: Account, name: string, slopCheckSkipped: boolean) {
  const p = h().devnet.protocol;
  const { transactionHash } = await h().write(serverWallet, "PodManager", "mintPodWithCORE", [user.address, subnet.tokenId]);
  return createMintedPod(h().store.db, h().runtime, {
    creator: { kind: "wallet", wallet: user.address },
    wallet: serverWallet.address,
    owner: user.address,
    body: PodDraftBodySchema.parse(podDraftBody(subnet.id, { podName: name, url: "https://x.example/status/1" })),
    txHash: transactionHash,
    source: "chat",
    slopCheckSkipped,
  }).then((pod) => ({ ...pod, p }));
}

beforeAll(async () => {
  owner = await h().signIn("owner", curator);
  publisher = await h().signIn("publisher", publisherAccount, "pub");
  for (const account of [curator, publisherAccount, serverWallet]) await h().fund(account);
  const p = h().devnet.protocol;
  const created = await owner.post(`${BASE}/me/subnets`, subnetDraftBody({}, p.address("DemoToken")));
  const { id } = (await json(created)).data;
  const tokenId = await p.read<bigint>("SubnetManager", "nextSubnetId");
  const { transactionHash } = await h().write(curator, "SubnetManager", "publishSubnet", [p.address("DemoToken")]);
  expect((await owner.post(`${BASE}/me/subnets/${id}/publish`, { subnetId: id, txHash: transactionHash })).status).toBe(200);
  subnet = { id, tokenId };
});

describe("banPod", () => {
  it("invalidates the pod on chain, marks it banned with the reason and hides it from the public lists", async () => {
    const pod = await mintedPod("Spam pod");
    await h().caughtUp();
    expect((await h().request(`${BASE}/public/pods/${pod.id}`)).status).toBe(200);

    const result = await banPod(moderation(), { pod: pod.id, reason: "  spam links  " });
    expect(result).toEqual({ podId: pod.id, tokenId: pod.tokenId, onChain: "sent", txHash: expect.stringMatching(/^0x/) });
    const p = h().devnet.protocol;
    expect(await p.read<boolean>("PodManager", "podValid", [pod.tokenId])).toBe(false);
    await h().caughtUp();

    const mine = await json(await publisher.get(`${BASE}/me/pods/${pod.id}`));
    expect(mine.data.pod).toMatchObject({ banned: true, banReason: "spam links", status: "active" });
    expect((await h().request(`${BASE}/public/pods/${pod.id}`)).status).toBe(404);
    const listed = await json(await h().request(`${BASE}/public/pods?limit=100`));
    expect(listed.data.pods.map((x: { id: string }) => x.id)).not.toContain(pod.id);
    const epoch = await p.currentEpoch();
    const valid = await json(await h().request(`${BASE}/public/pods?limit=100&filters[currentEpoch]=${epoch}`));
    expect(valid.data.pods.map((x: { id: string }) => x.id)).not.toContain(pod.id);
  });

  it("accepts the tokenId, and a second ban only updates the record", async () => {
    const pod = await mintedPod("Twice banned");
    expect((await banPod(moderation(), { pod: String(pod.tokenId), reason: "first" })).onChain).toBe("sent");
    const again = await banPod(moderation(), { pod: pod.id, reason: "second reason" });
    expect(again).toMatchObject({ onChain: "already", txHash: null });
    const mine = await json(await publisher.get(`${BASE}/me/pods/${pod.id}`));
    expect(mine.data.pod).toMatchObject({ banned: true, banReason: "second reason" });
  });

  it("bans a draft without touching the chain, and a chain-only pod by tokenId", async () => {
    const created = await publisher.post(`${BASE}/me/pods`, podDraftBody(subnet.id, { podName: "Draft to ban" }));
    const draftId = (await json(created)).data.id;
    expect(await banPod(moderation(), { pod: draftId, reason: "illegal content" })).toEqual({
      podId: draftId,
      tokenId: null,
      onChain: "not-minted",
      txHash: null,
    });
    const p = h().devnet.protocol;
    const tokenId = await p.read<bigint>("PodManager", "nextPodId");
    await h().write(publisherAccount, "PodManager", "mintPodWithCORE", [publisherAccount.address, subnet.tokenId]);
    expect(await banPod(moderation(), { pod: String(tokenId), reason: "no metadata" })).toMatchObject({
      podId: null,
      tokenId,
      onChain: "sent",
    });
  });

  it("refuses unknown pods, empty reasons and a key without the moderator role, changing nothing", async () => {
    await expect(banPod(moderation(), { pod: "00000000-0000-4000-8000-000000000000", reason: "x" })).rejects.toThrow(ModerationError);
    await expect(banPod(moderation(), { pod: "not-a-pod", reason: "x" })).rejects.toThrow(/Unknown pod/);
    await expect(banPod(moderation(), { pod: "99999", reason: "x" })).rejects.toThrow(/could not be read/);
    const pod = await mintedPod("Kept");
    await expect(banPod(moderation(), { pod: pod.id, reason: "   " })).rejects.toThrow(/reason/);
    await expect(banPod(moderation(), { pod: pod.id, reason: "y".repeat(501) })).rejects.toThrow(/reason/);
    await expect(banPod({ ...moderation(), moderator: roleAccount("voter1") }, { pod: pod.id, reason: "x" })).rejects.toThrow(
      /would fail/,
    );
    const mine = await json(await publisher.get(`${BASE}/me/pods/${pod.id}`));
    expect(mine.data.pod).toMatchObject({ banned: false, banReason: null });
    expect(await h().devnet.protocol.read<boolean>("PodManager", "podValid", [pod.tokenId])).toBe(true);
  });
});

describe("pods minted with the slop check skipped", () => {
  it("are listed for moderators with their state", async () => {
    const skipped = await chatPod(chatUser, "Unchecked post", true);
    const checked = await chatPod(chatUser, "Checked post", false);
    await h().caughtUp();
    let list = await listUncheckedPods(h().store.db);
    expect(list.map((pod) => pod.id)).toContain(skipped.id);
    expect(list.map((pod) => pod.id)).not.toContain(checked.id);
    expect(list.find((pod) => pod.id === skipped.id)).toMatchObject({
      tokenId: String(skipped.tokenId),
      source: "chat",
      owner: chatUser.address.toLowerCase(),
      banned: false,
      invalidated: false,
    });
    // the chat pod is public, credited to its owner's wallet (no platform user linked to it)
    const { data } = await json(await h().request(`${BASE}/public/pods/${skipped.id}`));
    expect(data.pod.creator).toEqual({ id: `wallet:${chatUser.address.toLowerCase()}`, username: null, avatarUrl: null });

    await banPod(moderation(), { pod: skipped.id, reason: "low quality" });
    await h().caughtUp();
    list = await listUncheckedPods(h().store.db);
    expect(list.find((pod) => pod.id === skipped.id)).toMatchObject({ banned: true, banReason: "low quality", invalidated: true });
  });
});

describe("npm run moderate", () => {
  const cli = async (args: string[]) => {
    const deploymentsFile = path.join(tempDir, "deployments.json");
    writeDeployment(h().devnet.deployment, deploymentsFile);
    const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: h().database.url, DEPLOYMENTS_FILE: deploymentsFile };
    for (const name of ["PONDER_RPC_URL_8453", "CORE_TOKEN_ADDRESS", "VE_CORE_ADDRESS", "SUBNET_MANAGER_ADDRESS", "POD_MANAGER_ADDRESS", "MODERATOR_PRIVATE_KEY"]) {
      delete env[name];
    }
    return run(process.execPath, ["--import", "tsx", "scripts/moderate.ts", ...args], { env, timeout: 60_000 });
  };

  it("bans a pod and lists the unchecked ones", async () => {
    const pod = await mintedPod("Banned from the command line");
    const banned = await cli(["ban", "--pod", pod.id, "--reason", "phishing", "--json"]);
    expect(JSON.parse(banned.stdout)).toMatchObject({ podId: pod.id, tokenId: String(pod.tokenId), onChain: "sent" });
    const mine = await json(await publisher.get(`${BASE}/me/pods/${pod.id}`));
    expect(mine.data.pod).toMatchObject({ banned: true, banReason: "phishing" });

    const listed = await cli(["list-unchecked", "--json"]);
    const pods = JSON.parse(listed.stdout) as Array<{ id: string }>;
    expect(pods.length).toBeGreaterThan(0);
    expect(pods.every((p) => typeof p.id === "string")).toBe(true);

    await expect(cli(["ban", "--pod", "nope", "--reason", "x"])).rejects.toMatchObject({ code: 1 });
  });
});
