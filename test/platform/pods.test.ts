/**
 * Pod routes (spec §4.2) through the real platform app, against anvil and the indexer:
 * draft bounds, auth, ownership, mint and republish with real transactions, the caller's votes
 * per epoch, and the public list (pagination, search, filters, volumes).
 */
import { keccak256, toHex, type Account } from "viem";
import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { listStamp, watchCountCache } from "../../api/platform/repositories/count-cache";
import { listPublicPods, publicSearchQuery, searchIds } from "../../api/platform/repositories/pods";
import { presentPublicPod } from "../../api/platform/presenters/pod";
import { roleAccount } from "../../devnet/accounts";
import { DAY } from "../../devnet/deploy";
import { publishDatanet } from "./agents-harness";
import { badCookies, BASE, CORE, json, podDraftBody, subnetDraftBody, usePlatformHarness, type Session } from "./harness";

const h = usePlatformHarness({ indexer: true });
const curatorA = roleAccount("curatorA"); // datanet owner
const curatorB = roleAccount("curatorB"); // pod publisher
const voter1 = roleAccount("voter1");
const voter2 = roleAccount("voter2");

let owner: Session;
let publisher: Session;
let stranger: Session;
let walletless: Session;
let voterSession: Session;
let research: { id: string; tokenId: bigint };
let datasets: { id: string; tokenId: bigint };
let ownerDraft: string;

const unknownHash = keccak256(toHex("no such transaction"));

async function createPod(session: Session, overrides: Record<string, unknown> = {}, subnetId = research.id) {
  const response = await session.post(`${BASE}/me/pods`, podDraftBody(subnetId, overrides));
  expect(response.status).toBe(201);
  return (await json(response)).data.id as string;
}

/** Mints a pod on chain from `account` (to `to`, default itself) into datanet `subnetTokenId`. */
async function mintOnChain(account: Account, subnetTokenId: bigint, to: Account = account) {
  const p = h().devnet.protocol;
  const tokenId = await p.read<bigint>("PodManager", "nextPodId");
  const receipt = await h().write(account, "PodManager", "mintPodWithCORE", [to.address, subnetTokenId]);
  return { hash: receipt.transactionHash, tokenId };
}

async function mintedPod(session: Session, account: Account, overrides: Record<string, unknown> = {}, subnet = research) {
  const id = await createPod(session, overrides, subnet.id);
  const { hash, tokenId } = await mintOnChain(account, subnet.tokenId);
  const response = await session.post(`${BASE}/me/pods/${id}/mint`, { podId: id, txHash: hash });
  expect(response.status).toBe(200);
  return { id, tokenId, hash };
}

beforeAll(async () => {
  owner = await h().signIn("owner", curatorA, "Olivia");
  publisher = await h().signIn("publisher", curatorB, "Paul");
  voterSession = await h().signIn("voter", voter1, "Vera");
  stranger = await h().signIn("stranger", voter2);
  walletless = await h().signIn("walletless");
  for (const account of [curatorA, curatorB, voter1, voter2]) await h().fund(account);
  research = await publishDatanet(h(), owner, curatorA, "Research");
  datasets = await publishDatanet(h(), owner, curatorA, "Datasets");
  await h().write(curatorA, "SubnetManager", "setPublishingFeeCORE", [research.tokenId, CORE(5)]);
  // voters: a lock for voting power and access to the research datanet
  for (const voter of [voter1, voter2]) {
    await h().write(voter, "VeCore", "stake", [CORE(1000), BigInt(365 * DAY)]);
    await h().write(voter, "SubnetManager", "accessSubnetWithCOREFee", [research.tokenId, voter.address]);
  }
  ownerDraft = (await json(await owner.post(`${BASE}/me/subnets`, subnetDraftBody()))).data.id;
});

describe("POST /me/pods (create draft)", () => {
  it("creates a draft owned by the caller, shown with status draft", async () => {
    const id = await createPod(publisher, { imageURL: "https://img.example/p.png", thumbnailURL: "https://img.example/t.png" });
    const body = await json(await publisher.get(`${BASE}/me/pods/${id}`));
    expect(Object.keys(body)).toEqual(["data"]);
    expect(body.data.pod).toEqual({
      id,
      name: "Attention is all you need",
      description: "The transformer paper, with its reference implementation",
      tokenId: null,
      privateSubnetId: research.id,
      url: "https://example.com/papers/attention",
      imageUrl: "https://img.example/p.png",
      thumbnailUrl: "https://img.example/t.png",
      status: "draft",
      banned: false,
      banReason: null,
      podValidityEpoch: 0,
      cumulativeUpVotesVolume: 0,
      cumulativeDownVotesVolume: 0,
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      updatedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
  });

  it("accepts the target datanet by tokenId and stores its id", async () => {
    const response = await publisher.post(`${BASE}/me/pods`, podDraftBody(String(research.tokenId)));
    expect(response.status).toBe(201);
    const { data } = await json(await publisher.get(`${BASE}/me/pods/${(await json(response)).data.id}`));
    expect(data.pod.privateSubnetId).toBe(research.id);
  });

  it("accepts the caller's own unpublished datanet, but not another user's draft", async () => {
    expect((await owner.post(`${BASE}/me/pods`, podDraftBody(ownerDraft))).status).toBe(201);
    const response = await publisher.post(`${BASE}/me/pods`, podDraftBody(ownerDraft));
    expect(response.status).toBe(400);
    expect(await json(response)).toEqual({ error: "subnetId: datanet not found" });
  });

  const long = (n: number) => "x".repeat(n);
  it.each([
    ["podName under 3", { podName: "ab" }],
    ["podName over 50", { podName: long(51) }],
    ["podName blank", { podName: "     " }],
    ["url not a URL", { url: "example" }],
    ["url with javascript:", { url: "javascript:alert(1)" }],
    ["url with data:", { url: "data:text/html,<script>alert(1)</script>" }],
    ["url with an empty ipfs://", { url: "ipfs://" }],
    ["url with a space", { url: "ipfs://bafy bafy" }],
    ["thumbnailURL with JavaScript: in any case", { thumbnailURL: "JavaScript:alert(1)" }],
    ["url missing", { url: undefined }],
    ["platform under 2", { platform: "x" }],
    ["platform over 50", { platform: long(51) }],
    ["category under 2", { category: "x" }],
    ["category over 50", { category: long(51) }],
    ["podDescription under 10", { podDescription: long(9) }],
    ["podDescription over 200", { podDescription: long(201) }],
    ["agreeToTerms false", { agreeToTerms: false }],
    ["agreeToTerms missing", { agreeToTerms: undefined }],
    ["agreeToTerms as a string", { agreeToTerms: "true" }],
    ["imageURL invalid", { imageURL: "nope" }],
    ["thumbnailURL invalid", { thumbnailURL: "nope" }],
    ["pdfURL invalid", { pdfURL: "nope" }],
    ["videoURL invalid", { videoURL: "nope" }],
    ["subnetId unknown", { subnetId: "00000000-0000-4000-8000-000000000000" }],
    ["subnetId unknown token", { subnetId: "424242" }],
    ["subnetId garbage", { subnetId: "'; drop table pods; --" }],
    ["subnetId empty", { subnetId: "" }],
    ["a NUL character in a text", { podDescription: "ten chars \u0000 and more" }],
    ["a NUL character in a URL", { url: "https://example.com/\u0000" }],
  ])("rejects %s with 400 and stores nothing", async (_name, overrides) => {
    const before = (await json(await publisher.get(`${BASE}/me/pods`))).data.pods.length;
    const response = await publisher.post(`${BASE}/me/pods`, podDraftBody(research.id, overrides));
    expect(response.status).toBe(400);
    expect(await json(response)).toEqual({ error: expect.any(String) });
    expect((await json(await publisher.get(`${BASE}/me/pods`))).data.pods.length).toBe(before);
  });

  it("accepts absolute URIs of any scheme (ipfs://, ar://, https://), stored and shown as given", async () => {
    const urls = {
      url: "ipfs://bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi/data.csv",
      imageURL: "ar://Zg6KqPxkvkG1dxLvP2Hb9fPpiGVsJp0o0f2mOkrjNR8",
      thumbnailURL: "https://img.example/t.png",
      pdfURL: "ipfs://bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi/paper.pdf",
    };
    const id = await createPod(publisher, urls);
    const { pod } = (await json(await publisher.get(`${BASE}/me/pods/${id}`))).data;
    expect(pod).toMatchObject({ url: urls.url, imageUrl: urls.imageURL, thumbnailUrl: urls.thumbnailURL });
  });

  it("says why a javascript: or data: URI is refused", async () => {
    const js = await publisher.post(`${BASE}/me/pods`, podDraftBody(research.id, { url: "javascript:alert(1)" }));
    expect(await json(js)).toEqual({ error: "url: javascript: URIs are refused: a browser would run them as script" });
    const data = await publisher.post(`${BASE}/me/pods`, podDraftBody(research.id, { imageURL: "data:image/png;base64,AAAA" }));
    expect(await json(data)).toEqual({
      error: "imageURL: data: URIs are refused: a browser would render their inline content as the page's",
    });
  });

  it("accepts every bound at its limit", async () => {
    for (const overrides of [
      { podName: long(50), platform: long(50), category: long(50), podDescription: long(200) },
      { podName: "abc", platform: "ab", category: "ab", podDescription: long(10), pdfURL: "https://x.example/a.pdf", videoURL: "http://x.example/v" },
    ]) {
      expect((await publisher.post(`${BASE}/me/pods`, podDraftBody(research.id, overrides))).status).toBe(201);
    }
  });
});

describe("auth and ownership", () => {
  const id = "00000000-0000-4000-8000-000000000000";
  it.each([
    ["GET", `${BASE}/me/pods`],
    ["POST", `${BASE}/me/pods`, {}],
    ["GET", `${BASE}/me/pods/${id}`],
    ["POST", `${BASE}/me/pods/${id}/mint`, {}],
    ["POST", `${BASE}/me/pods/${id}/republish`, {}],
    ["GET", `${BASE}/me/pods/votes/epochs/1`],
  ] as Array<[string, string, unknown?]>)("%s %s answers 401 for a missing, bad, expired or foreign cookie", async (method, path, body) => {
    for (const cookie of await badCookies(h(), { sub: "publisher", wallet: curatorB.address })) {
      const response = await h().request(path, { method, cookie, body });
      expect(response.status).toBe(401);
      expect(await json(response)).toEqual({ error: "Unauthorized" });
    }
  });

  it("hides another user's pod (404) from reads, mint and republish", async () => {
    const podId = await createPod(publisher, { podName: "Publisher only" });
    expect((await stranger.get(`${BASE}/me/pods/${podId}`)).status).toBe(404);
    for (const action of ["mint", "republish"]) {
      const response = await stranger.post(`${BASE}/me/pods/${podId}/${action}`, { podId, txHash: unknownHash });
      expect(response.status).toBe(404);
      expect(await json(response)).toEqual({ error: "Pod not found" });
    }
    const listed = (await json(await stranger.get(`${BASE}/me/pods`))).data.pods;
    expect(listed.map((p: { id: string }) => p.id)).not.toContain(podId);
  });

  it.each(["nope", "1", "00000000-0000-4000-8000-00000000000g"])("answers 404 for the path id %s", async (bad) => {
    expect((await publisher.get(`${BASE}/me/pods/${bad}`)).status).toBe(404);
    expect((await publisher.post(`${BASE}/me/pods/${bad}/mint`, { podId: bad, txHash: unknownHash })).status).toBe(404);
  });
});

describe("POST /me/pods/{id}/mint", () => {
  it("records a verified mint: tokenId set, status active, validity from the indexer", async () => {
    const { id, tokenId, hash } = await mintedPod(publisher, curatorB, { podName: "Minted once" });
    await h().caughtUp();
    const { data } = await json(await publisher.get(`${BASE}/me/pods/${id}`));
    const epoch = await h().devnet.protocol.currentEpoch();
    expect(data.pod).toMatchObject({ id, tokenId: Number(tokenId), status: "active", podValidityEpoch: epoch + 3 });
    const rows = await h().store.pool.query("SELECT kind, record_id FROM offchain.verified_transactions WHERE tx_hash = $1", [hash]);
    expect(rows.rows).toEqual([{ kind: "pod-mint", record_id: id }]);
  });

  it("rejects an unknown, reverted, other-kind, other-wallet, reused or mismatched tx", async () => {
    const id = await createPod(publisher, { podName: "Mint attempts" });
    const post = (txHash: string) => publisher.post(`${BASE}/me/pods/${id}/mint`, { podId: id, txHash });
    const expect400 = async (txHash: string, message: RegExp) => {
      const response = await post(txHash);
      expect(response.status).toBe(400);
      expect((await json(response)).error).toMatch(message);
    };
    await expect400(unknownHash, /not found/);
    const reverted = await h().sendReverted(curatorB, "PodManager", "mintPodWithCORE", [curatorB.address, 999n]);
    await expect400(reverted, /reverted/);
    const otherContract = await h().write(curatorB, "SubnetManager", "accessSubnetWithCOREFee", [research.tokenId, curatorB.address]);
    await expect400(otherContract.transactionHash, /not a call to PodManager/);
    const minted = await mintedPod(publisher, curatorB, { podName: "Used" });
    const republish = await h().write(curatorB, "PodManager", "republishPod", [minted.tokenId, research.tokenId]);
    await expect400(republish.transactionHash, /no PodMinted event/);
    const byStranger = await mintOnChain(voter2, research.tokenId);
    await expect400(byStranger.hash, /not sent by the caller's wallet/);
    await expect400(minted.hash, /already used/);
    const otherDatanet = await mintOnChain(curatorB, datasets.tokenId);
    await expect400(otherDatanet.hash, /does not match/);
    const forSomeoneElse = await mintOnChain(curatorB, research.tokenId, voter2);
    await expect400(forSomeoneElse.hash, /does not match/);
    const { data } = await json(await publisher.get(`${BASE}/me/pods/${id}`));
    expect(data.pod).toMatchObject({ status: "draft", tokenId: null });
  });

  it("rejects a mismatched podId, a second mint, a datanet not yet published and a user without a wallet", async () => {
    const { id } = await mintedPod(publisher, curatorB, { podName: "Twice" });
    const other = await createPod(publisher);
    const { hash } = await mintOnChain(curatorB, research.tokenId);
    expect(await json(await publisher.post(`${BASE}/me/pods/${id}/mint`, { podId: other, txHash: hash }))).toEqual({
      error: "podId must match the path",
    });
    expect(await json(await publisher.post(`${BASE}/me/pods/${id}/mint`, { podId: id, txHash: hash }))).toEqual({
      error: "Pod is already minted",
    });
    expect((await publisher.post(`${BASE}/me/pods/${other}/mint`, { podId: other, txHash: "0xabc" })).status).toBe(400);
    expect((await publisher.post(`${BASE}/me/pods/${other}/mint`, { podId: other, txHash: hash })).status).toBe(200);

    const onDraftDatanet = await createPod(owner, {}, ownerDraft);
    const ownerMint = await mintOnChain(curatorA, research.tokenId);
    expect(await json(await owner.post(`${BASE}/me/pods/${onDraftDatanet}/mint`, { podId: onDraftDatanet, txHash: ownerMint.hash }))).toEqual({
      error: "The pod's datanet is not published yet",
    });

    const walletlessPod = await createPod(walletless);
    const response = await walletless.post(`${BASE}/me/pods/${walletlessPod}/mint`, { podId: walletlessPod, txHash: unknownHash });
    expect(response.status).toBe(400);
    expect(await json(response)).toEqual({ error: "No wallet linked to this account" });
  });
});

describe("POST /me/pods/{id}/republish", () => {
  it("records a verified republish into another datanet; the pod follows it", async () => {
    const { id, tokenId } = await mintedPod(publisher, curatorB, { podName: "Moves to datasets" });
    const { transactionHash } = await h().write(curatorB, "PodManager", "republishPod", [tokenId, datasets.tokenId]);
    const response = await publisher.post(`${BASE}/me/pods/${id}/republish`, { podId: id, txHash: transactionHash });
    expect(response.status).toBe(200);
    expect(await json(response)).toEqual({ data: { success: true } });
    const { data } = await json(await publisher.get(`${BASE}/me/pods/${id}`));
    expect(data.pod.privateSubnetId).toBe(datasets.id);
    const rows = await h().store.pool.query("SELECT subnet_token_id FROM offchain.pod_republishes WHERE tx_hash = $1", [transactionHash]);
    expect(rows.rows).toEqual([{ subnet_token_id: String(datasets.tokenId) }]);
    const again = await publisher.post(`${BASE}/me/pods/${id}/republish`, { podId: id, txHash: transactionHash });
    expect(await json(again)).toEqual({ error: "Transaction already used" });
  });

  it("rejects another pod's republish, a mint tx, a reverted tx, another wallet's tx and an unminted pod", async () => {
    const mine = await mintedPod(publisher, curatorB, { podName: "Republish attempts" });
    const other = await mintedPod(publisher, curatorB, { podName: "Another" });
    const post = (txHash: string) => publisher.post(`${BASE}/me/pods/${mine.id}/republish`, { podId: mine.id, txHash });
    const expect400 = async (txHash: string, message: RegExp) => {
      const response = await post(txHash);
      expect(response.status).toBe(400);
      expect((await json(response)).error).toMatch(message);
    };
    const otherPod = await h().write(curatorB, "PodManager", "republishPod", [other.tokenId, research.tokenId]);
    await expect400(otherPod.transactionHash, /does not match/);
    const mint = await mintOnChain(curatorB, research.tokenId);
    await expect400(mint.hash, /no PodRepublished event/);
    const reverted = await h().sendReverted(voter2, "PodManager", "republishPod", [mine.tokenId, research.tokenId]);
    await expect400(reverted, /reverted|not sent by/);
    const strangersPod = await mintOnChain(voter2, research.tokenId);
    const strangers = await h().write(voter2, "PodManager", "republishPod", [strangersPod.tokenId, research.tokenId]);
    await expect400(strangers.transactionHash, /not sent by the caller's wallet/);
    const draft = await createPod(publisher);
    const response = await publisher.post(`${BASE}/me/pods/${draft}/republish`, { podId: draft, txHash: unknownHash });
    expect(await json(response)).toEqual({ error: "Pod is not minted yet" });
    expect(await json(await publisher.post(`${BASE}/me/pods/${mine.id}/republish`, { podId: draft, txHash: unknownHash }))).toEqual({
      error: "podId must match the path",
    });
  });
});

describe("GET /me/pods/votes/epochs/{epochId}", () => {
  it("lists the pods the caller's wallet voted on in that epoch", async () => {
    const voted = await mintedPod(publisher, curatorB, { podName: "Voted on" });
    await mintedPod(publisher, curatorB, { podName: "Not voted on" });
    await h().write(voter1, "PodManager", "vote", [voted.tokenId, CORE(10), true]);
    await h().caughtUp();
    const epoch = await h().devnet.protocol.currentEpoch();
    const { data } = await json(await voterSession.get(`${BASE}/me/pods/votes/epochs/${epoch}`));
    expect(data.pods.map((p: { id: string }) => p.id)).toEqual([voted.id]);
    expect(data.pods[0]).toMatchObject({ tokenId: Number(voted.tokenId), status: "active", cumulativeUpVotesVolume: 10 });
    const later = await json(await voterSession.get(`${BASE}/me/pods/votes/epochs/${epoch + 1}`));
    expect(later.data.pods).toEqual([]);
    const others = await json(await stranger.get(`${BASE}/me/pods/votes/epochs/${epoch}`));
    expect(others.data.pods).toEqual([]);
  });

  it.each(["0", "-1", "abc", "1.5", "99999999999999"])("rejects the epoch %s with 400", async (epoch) => {
    const response = await voterSession.get(`${BASE}/me/pods/votes/epochs/${epoch}`);
    expect(response.status).toBe(400);
    expect(await json(response)).toEqual({ error: expect.any(String) });
  });

  it("answers 400 to a user without a wallet", async () => {
    const response = await walletless.get(`${BASE}/me/pods/votes/epochs/1`);
    expect(await json(response)).toEqual({ error: "No wallet linked to this account" });
  });
});

describe("public pods", () => {
  let lake: { id: string; tokenId: bigint };
  let river: { id: string; tokenId: bigint };
  let hidden: { id: string; tokenId: bigint };

  beforeAll(async () => {
    lake = await mintedPod(publisher, curatorB, { podName: "Lake Baikal survey", podDescription: "Ice thickness measured on the lake" });
    river = await mintedPod(owner, curatorA, { podName: "River delta", podDescription: "Sediment samples from the delta" }, datasets);
    hidden = await mintedPod(publisher, curatorB, { podName: "Lake hidden", podDescription: "A banned pod about a lake" });
    await h().store.pool.query("UPDATE offchain.pod_drafts SET banned = true, ban_reason = 'spam' WHERE id = $1", [hidden.id]);
    await createPod(publisher, { podName: "Lake draft", podDescription: "Never minted, about a lake" });
    await h().write(voter1, "PodManager", "vote", [lake.tokenId, CORE("12.25"), true]);
    await h().write(voter2, "PodManager", "vote", [lake.tokenId, CORE(3), false]);
    await h().caughtUp();
  });

  it("shows minted pods with creator, volumes and validity; never drafts or banned pods", async () => {
    const { data } = await json(await h().request(`${BASE}/public/pods?limit=100`));
    const ids = data.pods.map((p: { id: string }) => p.id);
    expect(ids).toContain(lake.id);
    expect(ids).not.toContain(hidden.id);
    expect(data.pods.every((p: { tokenId: number }) => Number.isInteger(p.tokenId))).toBe(true);
    const tokenIds = data.pods.map((p: { tokenId: number }) => p.tokenId);
    expect(tokenIds).toEqual([...tokenIds].sort((a, b) => b - a));
    const pod = data.pods.find((p: { id: string }) => p.id === lake.id);
    const epoch = await h().devnet.protocol.currentEpoch();
    expect(pod).toEqual({
      id: lake.id,
      name: "Lake Baikal survey",
      description: "Ice thickness measured on the lake",
      tokenId: Number(lake.tokenId),
      privateSubnetId: research.id,
      url: "https://example.com/papers/attention",
      imageUrl: null,
      thumbnailUrl: null,
      videoUrl: null,
      pdfUrl: null,
      creator: { id: expect.any(String), username: "Paul", avatarUrl: null },
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      podValidityEpoch: epoch + 3,
      cumulativeUpVotesVolume: 12.25,
      cumulativeDownVotesVolume: 3,
    });
    expect(data.pagination).toEqual({ page: 1, limit: 100, total: data.pods.length, totalPages: 1 });
  });

  it("pages with stable ordering", async () => {
    const all = (await json(await h().request(`${BASE}/public/pods?limit=100`))).data.pods;
    const page2 = await json(await h().request(`${BASE}/public/pods?limit=3&page=2`));
    expect(page2.data.pods.map((p: { id: string }) => p.id)).toEqual(all.slice(3, 6).map((p: { id: string }) => p.id));
    expect(page2.data.pagination).toEqual({ page: 2, limit: 3, total: all.length, totalPages: Math.ceil(all.length / 3) });
  });

  it("searches name and description", async () => {
    const lakes = await json(await h().request(`${BASE}/public/pods?search=lake`));
    expect(lakes.data.pods.map((p: { id: string }) => p.id)).toEqual([lake.id]);
    const sediment = await json(await h().request(`${BASE}/public/pods?search=SEDIMENT%20delta`));
    expect(sediment.data.pods.map((p: { id: string }) => p.id)).toEqual([river.id]);
    const none = await json(await h().request(`${BASE}/public/pods?search=lake%20sediment`));
    expect(none.data.pods).toEqual([]);
  });

  it("filters by datanet (id or tokenId) and by the epoch a pod is valid in", async () => {
    const inDatasets = await json(await h().request(`${BASE}/public/pods?limit=100&filters[subnet]=${datasets.id}`));
    expect(inDatasets.data.pods.map((p: { id: string }) => p.id)).toContain(river.id);
    expect(inDatasets.data.pods.map((p: { id: string }) => p.id)).not.toContain(lake.id);
    const byToken = await json(await h().request(`${BASE}/public/pods?limit=100&filters%5Bsubnet%5D=${datasets.tokenId}`));
    expect(byToken.data.pods).toEqual(inDatasets.data.pods);
    for (const unknown of ["00000000-0000-4000-8000-000000000000", "nope", ownerDraft]) {
      const empty = await json(await h().request(`${BASE}/public/pods?filters[subnet]=${unknown}`));
      expect(empty.data).toEqual({ pods: [], pagination: { page: 1, limit: 10, total: 0, totalPages: 0 }, nextCursor: null });
    }
    const epoch = await h().devnet.protocol.currentEpoch();
    const now = await json(await h().request(`${BASE}/public/pods?limit=100&filters[currentEpoch]=${epoch}`));
    expect(now.data.pods.map((p: { id: string }) => p.id)).toContain(lake.id);
    const expired = await json(await h().request(`${BASE}/public/pods?limit=100&filters[currentEpoch]=${epoch + 4}`));
    expect(expired.data.pods).toEqual([]);
  });

  it.each(["page=0", "limit=0", "limit=101", "filters[currentEpoch]=abc", "filters[currentEpoch]=0", `search=${"y".repeat(201)}`, "search=%00", "filters[subnet]=a%00"])(
    "rejects %s with 400",
    async (query) => {
      const response = await h().request(`${BASE}/public/pods?${query}`);
      expect(response.status).toBe(400);
      expect(await json(response)).toEqual({ error: expect.any(String) });
    },
  );

  it("shows one pod by id or tokenId; 404 for drafts, banned pods and unknown ids", async () => {
    const byId = await json(await h().request(`${BASE}/public/pods/${lake.id}`));
    expect(byId.data.pod).toMatchObject({ id: lake.id, cumulativeUpVotesVolume: 12.25 });
    const byToken = await json(await h().request(`${BASE}/public/pods/${lake.tokenId}`));
    expect(byToken.data.pod.id).toBe(lake.id);
    const draft = await createPod(publisher);
    for (const id of [draft, hidden.id, String(hidden.tokenId), "garbage", "0", "00000000-0000-4000-8000-000000000000"]) {
      const response = await h().request(`${BASE}/public/pods/${id}`);
      expect(response.status).toBe(404);
      expect(await json(response)).toEqual({ error: "Pod not found" });
    }
  });

  it("uses the trigram index for search, not a scan", async () => {
    const query = publicSearchQuery(h().store.db, "lake survey").toSQL();
    const client = await h().store.pool.connect();
    try {
      await client.query("BEGIN");
      await client.query("SET LOCAL enable_seqscan = off");
      const plan = await client.query(`EXPLAIN ${query.sql}`, query.params);
      expect(plan.rows.map((row: Record<string, string>) => Object.values(row)[0]).join("\n")).toMatch(/pod_drafts_search_trgm_idx/);
      await client.query("ROLLBACK");
    } finally {
      client.release();
    }
  });

  /** The public list by plain OFFSET paging in SQL (the reference the seek must equal). */
  async function offsetPage(offset: number, limit: number, subnetTokenId?: bigint, search?: string, epoch?: number): Promise<string[]> {
    const { rows } = await h().store.pool.query<{ id: string }>(
      `SELECT d.id FROM offchain.pod_drafts d JOIN chain.pod p ON p.id = d.token_id AND p.mint_tx_hash = d.mint_tx_hash
       WHERE d.banned = false AND d.archived_at IS NULL AND ($3::numeric IS NULL OR p.subnet_id = $3::numeric)
         AND ($4::text IS NULL OR (d.pod_name || ' ' || d.pod_description) ILIKE '%' || $4 || '%')
         AND ($5::numeric IS NULL OR (p.mint_epoch <= $5 AND p.validity_epoch >= $5 AND (p.invalid_from_epoch IS NULL OR p.invalid_from_epoch > $5)))
       ORDER BY p.id DESC OFFSET $1 LIMIT $2`,
      [offset, limit, subnetTokenId?.toString() ?? null, search ?? null, epoch ?? null],
    );
    return rows.map((r) => r.id);
  }
  const pageIds = async (query: string) => (await json(await h().request(`${BASE}/public/pods?${query}`))).data.pods.map((p: { id: string }) => p.id);

  it("serves every page by a seek that equals OFFSET paging (sort key unique: no ties, no gaps), also filtered", async () => {
    await mintedPod(publisher, curatorB, { podName: "Seek one" });
    await mintedPod(owner, curatorA, { podName: "Seek two" }, datasets);
    await mintedPod(publisher, curatorB, { podName: "Seek three" });
    await h().caughtUp();
    const all = await offsetPage(0, 1000);
    expect(all.length).toBeGreaterThanOrEqual(5);
    for (const limit of [1, 2, 3]) {
      const seen: string[] = [];
      for (let page = 1; page <= Math.ceil(all.length / limit) + 1; page++) {
        const ids = await pageIds(`page=${page}&limit=${limit}`);
        expect(ids, `page ${page} of limit ${limit}`).toEqual(await offsetPage((page - 1) * limit, limit));
        seen.push(...ids);
      }
      // every listed pod exactly once over the pages
      expect(seen).toEqual(all);
    }
    const inResearch = await offsetPage(0, 1000, research.tokenId);
    expect(inResearch.length).toBeGreaterThanOrEqual(3);
    for (let page = 1; page <= inResearch.length; page++) {
      expect(await pageIds(`page=${page}&limit=1&filters[subnet]=${research.id}`)).toEqual(inResearch.slice(page - 1, page));
    }
    // a search (its matches kept as token ids, or past SEARCH_IDS_MAX walked), alone and with the filters
    const epoch = Number(await h().devnet.protocol.currentEpoch());
    const cases = [
      { query: "search=seek", search: "seek" },
      { query: `search=seek&filters[subnet]=${research.id}`, search: "seek", subnet: research.tokenId },
      { query: `search=seek&filters[currentEpoch]=${epoch}`, search: "seek", epoch },
      { query: `filters[currentEpoch]=${epoch}`, epoch },
      { query: `filters[currentEpoch]=${epoch}&filters[subnet]=${research.id}`, epoch, subnet: research.tokenId },
    ];
    const saved = searchIds.max;
    try {
      for (const max of [saved, 1]) {
        searchIds.max = max;
        for (const c of cases) {
          const expected = await offsetPage(0, 1000, c.subnet, c.search, c.epoch);
          expect(expected.length, c.query).toBeGreaterThanOrEqual(c.search ? 2 : 3);
          for (let page = 1; page <= expected.length + 1; page++) {
            const body = await json(await h().request(`${BASE}/public/pods?page=${page}&limit=2&${c.query}`));
            expect(body.data.pods.map((p: { id: string }) => p.id), `${c.query} page ${page} (max ${max})`).toEqual(expected.slice((page - 1) * 2, page * 2));
            expect(body.data.pagination.total, c.query).toBe(expected.length);
          }
        }
      }
    } finally {
      searchIds.max = saved;
    }
  });

  /** Every page of `query` by cursor, from page 1 (limit `limit`), until nextCursor is null. */
  async function cursorWalk(query: string, limit: number) {
    const pages: { ids: string[]; pagination: unknown }[] = [];
    let cursor: string | null = null;
    do {
      const url: string = `${BASE}/public/pods?limit=${limit}&${query}${cursor ? `&cursor=${cursor}` : ""}`;
      const response = await h().request(url);
      expect(response.status, url).toBe(200);
      const body = await json(response);
      pages.push({ ids: body.data.pods.map((p: { id: string }) => p.id), pagination: body.data.pagination });
      cursor = body.data.nextCursor;
      expect(pages.length, query).toBeLessThan(100);
    } while (cursor);
    return pages;
  }

  it("walks by cursor exactly the pages page/limit gives (ids, order, pagination), also searched and filtered", async () => {
    const epoch = Number(await h().devnet.protocol.currentEpoch());
    const cases = [
      { query: "" },
      { query: "search=seek", search: "seek" },
      { query: `filters[subnet]=${research.id}`, subnet: research.tokenId },
      { query: `filters[subnet]=${research.tokenId}`, subnet: research.tokenId },
      { query: `filters[currentEpoch]=${epoch}`, epoch },
      { query: `search=seek&filters[subnet]=${research.id}&filters[currentEpoch]=${epoch}`, search: "seek", subnet: research.tokenId, epoch },
    ];
    const saved = searchIds.max;
    try {
      for (const max of [saved, 1]) {
        searchIds.max = max;
        for (const c of cases) {
          const all = await offsetPage(0, 1000, c.subnet, c.search, c.epoch);
          expect(all.length, c.query).toBeGreaterThanOrEqual(2);
          for (const limit of [1, 2, 3]) {
            const walked = await cursorWalk(c.query, limit);
            expect(walked.length, `${c.query} limit ${limit}`).toBe(Math.max(1, Math.ceil(all.length / limit)));
            for (const [i, { ids, pagination }] of walked.entries()) {
              const byPage = await json(await h().request(`${BASE}/public/pods?page=${i + 1}&limit=${limit}&${c.query}`));
              expect(ids, `${c.query} limit ${limit} page ${i + 1} (max ${max})`).toEqual(byPage.data.pods.map((p: { id: string }) => p.id));
              expect(pagination).toEqual(byPage.data.pagination);
            }
            expect(walked.flatMap((p) => p.ids)).toEqual(all);
          }
        }
      }
    } finally {
      searchIds.max = saved;
    }
  });

  it("keeps a cursor walk exact across a mint meanwhile (the cursor is a position, not an offset)", async () => {
    const before = await offsetPage(0, 1000);
    const first = await json(await h().request(`${BASE}/public/pods?limit=2`));
    await mintedPod(publisher, curatorB, { podName: "Minted during a crawl" });
    await h().caughtUp();
    const ids = first.data.pods.map((p: { id: string }) => p.id);
    let cursor = first.data.nextCursor as string | null;
    while (cursor) {
      const body = await json(await h().request(`${BASE}/public/pods?limit=2&cursor=${cursor}`));
      ids.push(...body.data.pods.map((p: { id: string }) => p.id));
      cursor = body.data.nextCursor;
    }
    expect(ids).toEqual(before);
  });

  it("adds only nextCursor to the response without a cursor", async () => {
    for (const query of ["limit=2", "page=2&limit=2", "search=seek&limit=1", "limit=100"]) {
      const response = await h().request(`${BASE}/public/pods?${query}`);
      const text = await response.text();
      const params = new URLSearchParams(query);
      const page = Number(params.get("page") ?? 1);
      const limit = Number(params.get("limit"));
      const { rows, total } = await listPublicPods(h().store.db, { offset: (page - 1) * limit, limit, search: params.get("search") ?? undefined });
      const before = JSON.stringify({ data: { pods: rows.map(presentPublicPod), pagination: { page, limit, total, totalPages: Math.ceil(total / limit) } } });
      const nextCursor = JSON.parse(text).data.nextCursor;
      expect(text, query).toBe(`${before.slice(0, -2)},"nextCursor":${JSON.stringify(nextCursor)}}}`);
      expect(nextCursor === null, query).toBe(page * limit >= total);
    }
  });

  it("rejects a malformed or foreign cursor, and a cursor with page > 1, with 400", async () => {
    const first = await json(await h().request(`${BASE}/public/pods?limit=1`));
    const cursor: string = first.data.nextCursor;
    expect(cursor).toEqual(expect.any(String));
    const b64 = (text: string) => Buffer.from(text).toString("base64url");
    const text = Buffer.from(cursor, "base64url").toString();
    const bad = [
      "",
      "nope!",
      "%00",
      "x".repeat(201),
      b64("p1:abc:0:AAAAAAAAAAAA"),
      b64(text.replace(/^p1/, "p2")),
      b64(text.replace(/:[0-9]+:/, ":-1:")),
      b64(`${text}:more`),
      b64(text.replace(/:([0-9]+):([^:]+)$/, ":99999999999999999:$2")),
      `${cursor}A`,
    ];
    for (const value of bad) {
      const response = await h().request(`${BASE}/public/pods?cursor=${value}`);
      expect(response.status, value).toBe(400);
      expect(await json(response)).toEqual({ error: expect.any(String) });
    }
    // a cursor of the whole list is foreign to a search or a filter
    for (const query of ["search=seek", `filters[subnet]=${research.id}`, "filters[currentEpoch]=1"]) {
      const response = await h().request(`${BASE}/public/pods?${query}&cursor=${cursor}`);
      expect(response.status, query).toBe(400);
      expect(await json(response)).toEqual({ error: expect.stringMatching(/another search or filters/) });
    }
    const both = await h().request(`${BASE}/public/pods?page=2&cursor=${cursor}`);
    expect(both.status).toBe(400);
    expect(await json(both)).toEqual({ error: "Pass either cursor or page, not both" });
    // page=1 is the default: accepted beside a cursor
    expect((await h().request(`${BASE}/public/pods?page=1&limit=1&cursor=${cursor}`)).status).toBe(200);
  });

  it("keeps pages exact across a mint, a ban and a vote (page boundaries are cached per listed set)", async () => {
    const before = await pageIds("page=2&limit=2");
    expect(before).toEqual(await offsetPage(2, 2));
    const stamp0 = await listStamp(h().store.db);

    // an indexed vote changes no listed set: same stamp, same page
    await h().write(voter1, "PodManager", "vote", [lake.tokenId, CORE(1), true]);
    await h().caughtUp();
    expect(await listStamp(h().store.db)).toBe(stamp0);
    expect(await pageIds("page=2&limit=2")).toEqual(before);

    // a mint puts a pod on top: page 2 shifts by one
    const fresh = await mintedPod(publisher, curatorB, { podName: "Seek across an insert" });
    await h().caughtUp();
    const stamp1 = await listStamp(h().store.db);
    expect(stamp1).not.toBe(stamp0);
    const afterMint = await pageIds("page=2&limit=2");
    expect(afterMint).toEqual(await offsetPage(2, 2));
    expect(afterMint[1]).toBe(before[0]);
    const total = (await json(await h().request(`${BASE}/public/pods?limit=2`))).data.pagination.total;
    expect(total).toBe((await offsetPage(0, 1000)).length);

    // a ban (off-chain) takes it out again
    await h().store.pool.query("UPDATE offchain.pod_drafts SET banned = true, ban_reason = 'test' WHERE id = $1", [fresh.id]);
    expect(await listStamp(h().store.db)).not.toBe(stamp1);
    expect(await pageIds("page=2&limit=2")).toEqual(before);
    expect((await json(await h().request(`${BASE}/public/pods?limit=2`))).data.pagination.total).toBe(total - 1);
    await h().store.pool.query("UPDATE offchain.pod_drafts SET banned = false, ban_reason = null WHERE id = $1", [fresh.id]);
  });

  it("keeps the list's stamp across comments and feedback; a ban, an archive or a new listed pod changes it", async () => {
    const readVersion = async () => (await h().store.pool.query("SELECT sum(version)::text AS v FROM offchain.read_versions")).rows[0].v;
    /** The count-cache values a first page of the list looked up: `miss` when one was computed. */
    const lookups = async (query: string) => {
      const seen: string[] = [];
      const stop = watchCountCache((_key, hit) => seen.push(hit ? "hit" : "miss"));
      try {
        const body = await json(await h().request(`${BASE}/public/pods?${query}`));
        return { seen, total: body.data.pagination.total as number };
      } finally {
        stop();
      }
    };
    const epoch = Number(await h().devnet.protocol.currentEpoch());
    const queries = ["limit=2", "page=2&limit=2", `filters[currentEpoch]=${epoch}&limit=2`, "search=lake&limit=2"];
    for (const query of queries) await lookups(query);
    const stamp0 = await listStamp(h().store.db);
    const read0 = await readVersion();

    // engagement writes: the response cache's version moves, the list's stamp does not, nothing is recounted
    const comment = await voterSession.post(`${BASE}/pods/${lake.id}/comments`, { podId: lake.id, comment: "Thick ice" });
    expect(comment.status).toBe(201);
    await h().store.pool.query(
      `INSERT INTO offchain.feedback (user_id, voter, pod_id, pod_token_id, subnet_token_id, epoch, voting_power, up_vote, private_subnet_id, votes, feedback)
       SELECT id, wallet_address, $1, $2, $3, 1, 1, true, $4, 1, 'good' FROM offchain.users WHERE wallet_address = $5`,
      [lake.id, lake.tokenId.toString(), research.tokenId.toString(), research.id, voter1.address.toLowerCase()],
    );
    expect(await readVersion()).not.toBe(read0);
    expect(await listStamp(h().store.db)).toBe(stamp0);
    for (const query of queries) expect((await lookups(query)).seen, query).not.toContain("miss");

    // listing writes: each changes the stamp and the totals are right on the next read
    const expectFreshTotal = async (stampBefore: string | undefined) => {
      const stamp = await listStamp(h().store.db);
      expect(stamp).not.toBe(stampBefore);
      const { seen, total } = await lookups("limit=2");
      expect(seen).toContain("miss");
      expect(total).toBe((await offsetPage(0, 1000)).length);
      return stamp;
    };
    const fresh = await mintedPod(publisher, curatorB, { podName: "Stamp probe" });
    await h().caughtUp();
    let stamp = await expectFreshTotal(stamp0);
    await h().store.pool.query("UPDATE offchain.pod_drafts SET banned = true, ban_reason = 'test' WHERE id = $1", [fresh.id]);
    stamp = await expectFreshTotal(stamp);
    await h().store.pool.query("UPDATE offchain.pod_drafts SET banned = false, ban_reason = null WHERE id = $1", [fresh.id]);
    stamp = await expectFreshTotal(stamp);
    await h().store.pool.query("UPDATE offchain.pod_drafts SET archived_at = now() WHERE id = $1", [fresh.id]);
    stamp = await expectFreshTotal(stamp);
    // a new unminted draft is not listed: same stamp
    await createPod(publisher, { podName: "Stamp draft" });
    expect(await listStamp(h().store.db)).toBe(stamp);
  });

  it("caches nothing while the indexer's views lack a table the list's stamp reads (event_log)", async () => {
    const rollback = new Error("rollback");
    let stamp: string | undefined = "unset";
    await expect(
      h().store.db.transaction(async (tx) => {
        await tx.execute(sql`ALTER VIEW chain.event_log RENAME TO event_log_hidden`);
        stamp = await listStamp(tx);
        throw rollback;
      }),
    ).rejects.toBe(rollback);
    expect(stamp).toBeUndefined();
    expect(await listStamp(h().store.db)).toEqual(expect.any(String));
  });
});

describe("OpenAPI document", () => {
  it("lists every pod route", async () => {
    const doc = await json(await h().request("/openapi.json"));
    for (const [path, method] of [
      ["/api/v1/me/pods", "get"],
      ["/api/v1/me/pods", "post"],
      ["/api/v1/me/pods/{id}", "get"],
      ["/api/v1/me/pods/{id}/mint", "post"],
      ["/api/v1/me/pods/{id}/republish", "post"],
      ["/api/v1/me/pods/votes/epochs/{epochId}", "get"],
      ["/api/v1/public/pods", "get"],
      ["/api/v1/public/pods/{podId}", "get"],
    ] as const) {
      expect(doc.paths[path]?.[method], `${method} ${path}`).toBeDefined();
    }
    const params = doc.paths["/api/v1/public/pods"].get.parameters.map((p: { name: string }) => p.name);
    expect(params).toEqual(expect.arrayContaining(["page", "limit", "search", "filters[currentEpoch]", "filters[subnet]"]));
  });
});
