/**
 * What the live platform's public clients send: empty strings for unset URL fields, and
 * `isOrquestra` for `isOrchestrator` (the agent node sends `PATCH {"isOrquestra": true}` on
 * every start).
 */
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { podDrafts } from "../../api/db/offchain";
import { roleAccount } from "../../devnet/accounts";
import { BASE, json, podDraftBody, subnetDraftBody, usePlatformHarness, type Session } from "./harness";

const h = usePlatformHarness();
let owner: Session;

beforeAll(async () => {
  owner = await h().signIn("owner", roleAccount("curatorA"), "Olivia");
});

const EMPTY_URLS = { imageURL: "", thumbnailURL: "", pdfURL: "", videoURL: "" };

describe("optional URL fields sent as empty strings", () => {
  it("mean absent on datanet and pod drafts", async () => {
    const subnet = await owner.post(`${BASE}/me/subnets`, subnetDraftBody({ imageURL: "" }));
    expect(subnet.status).toBe(201);
    const subnetId = (await json(subnet)).data.id;
    const pod = await owner.post(`${BASE}/me/pods`, podDraftBody(subnetId, EMPTY_URLS));
    expect(pod.status).toBe(201);
    const [row] = await h().store.db.select().from(podDrafts).where(eq(podDrafts.id, (await json(pod)).data.id));
    expect([row!.imageUrl, row!.thumbnailUrl, row!.pdfUrl, row!.videoUrl]).toEqual([null, null, null, null]);
  });

  it("still refuse a URI a browser would run", async () => {
    const response = await owner.post(`${BASE}/me/subnets`, subnetDraftBody({ imageURL: "javascript:alert(1)" }));
    expect(response.status).toBe(400);
    expect(await json(response)).toEqual({ error: expect.stringContaining("imageURL") });
  });

  it("mean absent on agent registration", async () => {
    const response = await h().request(`${BASE}/agents/register`, { body: { name: "Node", description: "", thumbnailURL: "" } });
    expect(response.status).toBe(200);
    expect((await json(response)).data.thumbnailURL).toBeNull();
  });
});

describe("isOrquestra, the live name of isOrchestrator", () => {
  it("is accepted on register and on PATCH alone; the register answer carries both names", async () => {
    const registered = await h().request(`${BASE}/agents/register`, { body: { name: "Orq", description: "node", isOrquestra: true } });
    expect(registered.status).toBe(200);
    const agent = (await json(registered)).data;
    expect(agent.isOrchestrator).toBe(true);
    expect(agent.isOrquestra).toBe(true);

    const headers = { Authorization: `Bearer ${agent.apiKey}` };
    const patched = await h().request(`${BASE}/agents/${agent.id}`, { method: "PATCH", headers, body: { isOrquestra: false } });
    expect(patched.status).toBe(200);
    const again = await h().request(`${BASE}/agents/${agent.id}`, { method: "PATCH", headers, body: { isOrquestra: true } });
    expect(again.status).toBe(200);
    expect((await h().request(`${BASE}/agents/${agent.id}`, { method: "PATCH", headers, body: {} })).status).toBe(400);
  });
});
