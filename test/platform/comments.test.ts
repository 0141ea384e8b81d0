/** GET/POST /pods/{podId}/comments through the real app, against anvil and the indexer. */
import { randomUUID } from "node:crypto";
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { podDrafts } from "../../api/db/offchain";
import { roleAccount } from "../../devnet/accounts";
import { listed, mintedPod, publishDatanet, type Ref } from "./agents-harness";
import { badCookies, BASE, json, podDraftBody, usePlatformHarness, type Session } from "./harness";

const h = usePlatformHarness({ indexer: true });
const curatorA = roleAccount("curatorA");
const curatorB = roleAccount("curatorB");

let owner: Session;
let publisher: Session;
let reader: Session;
let research: Ref;
let pod: Ref;
let draftId: string;
let chainOnlyTokenId: bigint;

const path = (podId: string) => `${BASE}/pods/${podId}/comments`;

beforeAll(async () => {
  owner = await h().signIn("owner", curatorA, "Olivia");
  publisher = await h().signIn("publisher", curatorB, "Paul");
  reader = await h().signIn("reader", undefined, "Rita");
  for (const account of [curatorA, curatorB]) await h().fund(account);
  research = await publishDatanet(h(), owner, curatorA);
  pod = await mintedPod(h(), publisher, curatorB, research);
  draftId = (await json(await publisher.post(`${BASE}/me/pods`, podDraftBody(research.id)))).data.id;
  chainOnlyTokenId = await h().devnet.protocol.read<bigint>("PodManager", "nextPodId");
  await h().write(curatorB, "PodManager", "mintPodWithCORE", [curatorB.address, research.tokenId]);
  await listed(h(), pod);
});

describe("POST /pods/{podId}/comments", () => {
  it("stores a comment and answers 201 with its id", async () => {
    const response = await reader.post(path(pod.id), { podId: pod.id, comment: "  A clear write-up.  " });
    expect(response.status).toBe(201);
    const body = await json(response);
    expect(body).toEqual({ data: { id: expect.stringMatching(/^[0-9a-f-]{36}$/) } });
  });

  it("accepts the pod's tokenId as its id (body and path the same)", async () => {
    const ref = String(pod.tokenId);
    expect((await reader.post(path(ref), { podId: ref, comment: "By token id" })).status).toBe(201);
  });

  const long = (n: number) => "x".repeat(n);
  it.each([
    ["comment missing", { comment: undefined }],
    ["comment empty", { comment: "" }],
    ["comment blank", { comment: "   " }],
    ["comment over 2000", { comment: long(2001) }],
    ["comment not a string", { comment: 5 }],
    ["podId missing", { podId: undefined }],
    ["podId empty", { podId: "" }],
  ])("answers 400 for %s", async (_name, override) => {
    const response = await reader.post(path(pod.id), { podId: pod.id, comment: "ok", ...override });
    expect(response.status).toBe(400);
    expect(Object.keys(await json(response))).toEqual(["error"]);
  });

  it("accepts a comment of exactly 2000 characters", async () => {
    expect((await reader.post(path(pod.id), { podId: pod.id, comment: long(2000) })).status).toBe(201);
  });

  it("answers 400 when the body's podId differs from the path", async () => {
    const response = await reader.post(path(pod.id), { podId: String(pod.tokenId), comment: "x" });
    expect(response.status).toBe(400);
    expect(await json(response)).toEqual({ error: "podId must match the path" });
  });

  it("answers 400 for a body that is not JSON", async () => {
    const response = await h().request(path(pod.id), { cookie: reader.cookie, body: "{nope", method: "POST" });
    expect(response.status).toBe(400);
    expect(await json(response)).toEqual({ error: "Invalid JSON body" });
  });

  it.each([
    ["an unknown id", () => randomUUID()],
    ["a malformed id", () => "not-a-pod"],
    ["an unminted draft", () => draftId],
    ["a chain-only pod without metadata", () => String(chainOnlyTokenId)],
  ])("answers 404 for %s", async (_name, id) => {
    const podId = id();
    const response = await reader.post(path(podId), { podId, comment: "hello" });
    expect(response.status).toBe(404);
    expect(await json(response)).toEqual({ error: "Pod not found" });
    expect((await reader.get(path(podId))).status).toBe(404);
  });

  it("answers 401 for every bad cookie, and stores nothing", async () => {
    const before = (await json(await reader.get(path(pod.id)))).data.comments.length;
    for (const cookie of await badCookies(h(), { sub: "reader" })) {
      const response = await h().request(path(pod.id), { cookie, body: { podId: pod.id, comment: "sneaky" } });
      expect(response.status).toBe(401);
      expect(await json(response)).toEqual({ error: "Unauthorized" });
    }
    expect((await json(await reader.get(path(pod.id)))).data.comments.length).toBe(before);
  });
});

describe("GET /pods/{podId}/comments", () => {
  it("lists the pod's comments oldest first, with the author's name and picture", async () => {
    const podRef = await mintedPod(h(), publisher, curatorB, research, { podName: "Ordered comments" });
    await listed(h(), podRef);
    const pictured = await h().cookie({ sub: "pictured", username: "Pia", avatarUrl: "https://img.example/pia.png" });
    const nameless = await h().cookie({ sub: "nameless", wallet: roleAccount("voter3").address });
    const anonymous = await h().cookie({ sub: "anonymous" });
    const ids: string[] = [];
    for (const [cookie, comment] of [
      [pictured, "first"],
      [nameless, "second"],
      [anonymous, "third"],
      [reader.cookie, "fourth"],
    ] as const) {
      const response = await h().request(path(podRef.id), { cookie, body: { podId: podRef.id, comment } });
      ids.push((await json(response)).data.id);
    }
    const response = await reader.get(path(podRef.id));
    expect(response.status).toBe(200);
    const body = await json(response);
    expect(body).toEqual({
      data: {
        comments: [
          { id: ids[0], comment: "first", createdAt: expect.any(String), userName: "Pia", thumbnailURL: "https://img.example/pia.png" },
          {
            id: ids[1],
            comment: "second",
            createdAt: expect.any(String),
            userName: roleAccount("voter3").address.toLowerCase(),
            thumbnailURL: null,
          },
          { id: ids[2], comment: "third", createdAt: expect.any(String), userName: "Anonymous", thumbnailURL: null },
          { id: ids[3], comment: "fourth", createdAt: expect.any(String), userName: "Rita", thumbnailURL: null },
        ],
      },
    });
    const times = body.data.comments.map((c: { createdAt: string }) => Date.parse(c.createdAt));
    expect([...times].sort((a, b) => a - b)).toEqual(times);
    // the same list by token id
    expect(await json(await reader.get(path(String(podRef.tokenId))))).toEqual(body);
  });

  it("answers an empty list for a pod without comments", async () => {
    const quiet = await mintedPod(h(), publisher, curatorB, research, { podName: "Quiet pod" });
    await listed(h(), quiet);
    expect(await json(await reader.get(path(quiet.id)))).toEqual({ data: { comments: [] } });
  });

  it("hides an archived pod's comments (404)", async () => {
    const archived = await mintedPod(h(), publisher, curatorB, research, { podName: "Soon archived" });
    await listed(h(), archived);
    expect((await reader.post(path(archived.id), { podId: archived.id, comment: "before" })).status).toBe(201);
    await h().store.db.update(podDrafts).set({ archivedAt: new Date() }).where(eq(podDrafts.id, archived.id));
    expect((await reader.get(path(archived.id))).status).toBe(404);
  });

  it("answers 401 for every bad cookie", async () => {
    for (const cookie of await badCookies(h(), { sub: "reader" })) {
      const response = await h().request(path(pod.id), { cookie });
      expect(response.status).toBe(401);
      expect(await json(response)).toEqual({ error: "Unauthorized" });
    }
  });
});
