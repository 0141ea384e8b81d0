import { createHash, randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getAddress } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { walletSessions } from "../../api/db/offchain";
import { createMemoryRateLimiter } from "../../api/http/rate-limit";
import { getJson, postJson, signIn, startChatApp, type ChatTestServer } from "./support";

let server: ChatTestServer;
let offsetMs = 0;
const now = () => new Date(Date.now() + offsetMs);

const alice = privateKeyToAccount(generatePrivateKey());
const mallory = privateKeyToAccount(generatePrivateKey());

beforeAll(async () => {
  server = await startChatApp({ chat: { now }, env: { CHAT_SERVICE_NAME: "Test Chat Server" } });
});
afterAll(async () => {
  await server?.close();
});

const UNAUTHORIZED = { error: "Unauthorized" };

async function nonceFor(address: string) {
  const response = await postJson(server.app, "/auth/nonce", { walletAddress: address });
  expect(response.status).toBe(200);
  return (await response.json()) as { nonce: string; message: string; expiresAt: string };
}

/** A request only an authenticated wallet gets past: 404 for a session that does not exist. */
async function authenticated(token: string): Promise<boolean> {
  const response = await getJson(server.app, `/chat/${randomUUID()}/history`, token);
  if (response.status === 401) {
    expect(await response.json()).toEqual(UNAUTHORIZED);
    return false;
  }
  expect(response.status).toBe(404);
  return true;
}

async function expectUnauthorized(response: Response) {
  expect(response.status).toBe(401);
  expect(await response.json()).toEqual(UNAUTHORIZED);
}

describe("POST /auth/nonce", () => {
  it("issues a UUID nonce valid 5 minutes and a message naming the service, the address, the nonce and the expiry", async () => {
    const before = Date.now();
    const { nonce, message, expiresAt } = await nonceFor(alice.address.toLowerCase());
    expect(nonce).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(message).toContain("Test Chat Server");
    expect(message).toContain(getAddress(alice.address));
    expect(message).toContain(nonce);
    expect(message).toContain(expiresAt);
    const lifetime = new Date(expiresAt).getTime() - before;
    expect(lifetime).toBeGreaterThan(5 * 60_000 - 2_000);
    expect(lifetime).toBeLessThanOrEqual(5 * 60_000 + 2_000);
  });

  it.each([
    ["a missing address", {}],
    ["a short address", { walletAddress: "0x1234" }],
    ["an address without 0x", { walletAddress: alice.address.slice(2) }],
    ["a non-hex address", { walletAddress: `0x${"z".repeat(40)}` }],
    ["a number", { walletAddress: 42 }],
  ])("answers 400 with a flat error for %s", async (_label, body) => {
    const response = await postJson(server.app, "/auth/nonce", body);
    expect(response.status).toBe(400);
    const json = (await response.json()) as { error: string };
    expect(Object.keys(json)).toEqual(["error"]);
    expect(json.error).toMatch(/walletAddress/);
  });

  it("answers 400 for a body that is not JSON", async () => {
    const response = await postJson(server.app, "/auth/nonce", "{not json");
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ error: "Invalid JSON body" });
  });
});

describe("POST /auth/verify", () => {
  it("returns a 24-hour token and the wallet in lower case for a personal_sign signature", async () => {
    const { nonce, message } = await nonceFor(getAddress(alice.address));
    const signature = await alice.signMessage({ message });
    const response = await postJson(server.app, "/auth/verify", { walletAddress: getAddress(alice.address), signature, nonce });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { token: string; walletAddress: string; expiresAt: string };
    expect(body.walletAddress).toBe(alice.address.toLowerCase());
    expect(body.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const lifetime = new Date(body.expiresAt).getTime() - Date.now();
    expect(lifetime).toBeGreaterThan(24 * 3_600_000 - 5_000);
    expect(lifetime).toBeLessThanOrEqual(24 * 3_600_000);
    expect(await authenticated(body.token)).toBe(true);

    // stored hashed, never in clear
    const rows = await server.store.db.select().from(walletSessions);
    const hash = createHash("sha256").update(body.token).digest("hex");
    expect(rows.some((row) => row.tokenHash === hash && row.walletAddress === alice.address.toLowerCase())).toBe(true);
    expect(rows.some((row) => row.tokenHash === body.token)).toBe(false);
  });

  it("rejects a replayed nonce with 401", async () => {
    const { nonce, message } = await nonceFor(alice.address);
    const signature = await alice.signMessage({ message });
    const body = { walletAddress: alice.address, signature, nonce };
    expect((await postJson(server.app, "/auth/verify", body)).status).toBe(200);
    await expectUnauthorized(await postJson(server.app, "/auth/verify", body));
  });

  it("lets only one of two concurrent verifications of one nonce through", async () => {
    const { nonce, message } = await nonceFor(alice.address);
    const signature = await alice.signMessage({ message });
    const body = { walletAddress: alice.address, signature, nonce };
    const statuses = (await Promise.all([1, 2, 3].map(() => postJson(server.app, "/auth/verify", body)))).map((r) => r.status);
    expect(statuses.sort()).toEqual([200, 401, 401]);
  });

  it("rejects an expired nonce with 401 (used after 5 minutes) and accepts one just before", async () => {
    const late = await nonceFor(alice.address);
    const early = await nonceFor(alice.address);
    const lateSignature = await alice.signMessage({ message: late.message });
    const earlySignature = await alice.signMessage({ message: early.message });
    // the server's clock set from each nonce's own expiry (5 minutes after it was issued), so the
    // time the test took since then does not count
    const offsetTo = (expiresAt: string, deltaMs: number) => Date.parse(expiresAt) + deltaMs - Date.now();
    try {
      offsetMs = offsetTo(early.expiresAt, -5_000);
      const ok = await postJson(server.app, "/auth/verify", { walletAddress: alice.address, signature: earlySignature, nonce: early.nonce });
      expect(ok.status).toBe(200);
      offsetMs = offsetTo(late.expiresAt, 1_000);
      await expectUnauthorized(
        await postJson(server.app, "/auth/verify", { walletAddress: alice.address, signature: lateSignature, nonce: late.nonce }),
      );
    } finally {
      offsetMs = 0;
    }
  });

  it("rejects a wrong nonce with 401: unknown, malformed, or issued for another address", async () => {
    const { message } = await nonceFor(alice.address);
    const signature = await alice.signMessage({ message });
    await expectUnauthorized(await postJson(server.app, "/auth/verify", { walletAddress: alice.address, signature, nonce: randomUUID() }));
    await expectUnauthorized(await postJson(server.app, "/auth/verify", { walletAddress: alice.address, signature, nonce: "not-a-uuid" }));

    const forMallory = await nonceFor(mallory.address);
    const malloryMessageSignedByAlice = await alice.signMessage({ message: forMallory.message });
    await expectUnauthorized(
      await postJson(server.app, "/auth/verify", { walletAddress: alice.address, signature: malloryMessageSignedByAlice, nonce: forMallory.nonce }),
    );
  });

  it("rejects a foreign signature with 401 and leaves the nonce usable by its owner", async () => {
    const { nonce, message } = await nonceFor(alice.address);
    const foreign = await mallory.signMessage({ message });
    await expectUnauthorized(await postJson(server.app, "/auth/verify", { walletAddress: alice.address, signature: foreign, nonce }));
    const otherText = await alice.signMessage({ message: `${message}\nextra` });
    await expectUnauthorized(await postJson(server.app, "/auth/verify", { walletAddress: alice.address, signature: otherText, nonce }));
    for (const garbage of ["0x1234", "not hex at all", `0x${"ab".repeat(65)}`, `0x${"00".repeat(65)}`]) {
      await expectUnauthorized(await postJson(server.app, "/auth/verify", { walletAddress: alice.address, signature: garbage, nonce }));
    }
    const signature = await alice.signMessage({ message });
    expect((await postJson(server.app, "/auth/verify", { walletAddress: alice.address, signature, nonce })).status).toBe(200);
  });

  it.each([
    ["no signature", (n: string) => ({ walletAddress: alice.address, nonce: n })],
    ["no nonce", () => ({ walletAddress: alice.address, signature: "0x12" })],
    ["no address", (n: string) => ({ signature: "0x12", nonce: n })],
    ["a non-string signature", (n: string) => ({ walletAddress: alice.address, signature: 12, nonce: n })],
  ])("answers 400 for a body with %s", async (_label, body) => {
    const { nonce } = await nonceFor(alice.address);
    const response = await postJson(server.app, "/auth/verify", body(nonce));
    expect(response.status).toBe(400);
    expect(Object.keys((await response.json()) as object)).toEqual(["error"]);
  });
});

describe("wallet session token", () => {
  it.each([
    ["no Authorization header", undefined],
    ["an empty bearer", ""],
    ["a malformed token", "abc"],
    ["an unknown token", "A".repeat(43)],
  ])("answers 401 for %s", async (_label, token) => {
    const response = await server.app.request(`/chat/${randomUUID()}/history`, {
      headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
    });
    await expectUnauthorized(response);
  });

  it("rejects a non-Bearer scheme", async () => {
    const token = await signIn(server.app, alice);
    await expectUnauthorized(await server.app.request(`/chat/${randomUUID()}/history`, { headers: { authorization: `Basic ${token}` } }));
  });

  it("expires after 24 hours", async () => {
    const token = await signIn(server.app, alice);
    try {
      offsetMs = 24 * 3_600_000 - 60_000;
      expect(await authenticated(token)).toBe(true);
      offsetMs = 24 * 3_600_000 + 1_000;
      expect(await authenticated(token)).toBe(false);
    } finally {
      offsetMs = 0;
    }
  });

  it("guards every wallet route", async () => {
    const routes: [string, string][] = [
      ["POST", "/pods/mint"],
      ["GET", "/pods"],
      ["GET", "/pods/1/emissions"],
      ["POST", "/pods/1/emissions/claim"],
      ["POST", "/chat"],
      ["GET", `/chat/${randomUUID()}/history`],
    ];
    for (const [method, path] of routes) {
      const response = await server.app.request(path, {
        method,
        headers: { "content-type": "application/json", authorization: "Bearer nope" },
        body: method === "POST" ? "{}" : undefined,
      });
      await expectUnauthorized(response);
    }
  });
});

describe("rate limits", () => {
  it("limit each wallet across IPs as well as each IP (429 with Retry-After)", async () => {
    const limited = await startChatApp({
      database: server.database,
      apiEnv: { TRUST_PROXY: "true" },
      rateLimiter: createMemoryRateLimiter({ points: 4, windowSeconds: 60, keyPrefix: "chat-limit-test" }),
    });
    try {
      // sign in from one IP (2 requests), then use the token from fresh IPs each time
      const nonce = await limited.app.request("/auth/nonce", {
        method: "POST",
        headers: { "content-type": "application/json", "x-forwarded-for": "198.51.100.1" },
        body: JSON.stringify({ walletAddress: alice.address }),
      });
      const { nonce: value, message } = (await nonce.json()) as { nonce: string; message: string };
      const verify = await limited.app.request("/auth/verify", {
        method: "POST",
        headers: { "content-type": "application/json", "x-forwarded-for": "198.51.100.1" },
        body: JSON.stringify({ walletAddress: alice.address, nonce: value, signature: await alice.signMessage({ message }) }),
      });
      const { token } = (await verify.json()) as { token: string };
      const statuses: number[] = [];
      for (let i = 0; i < 6; i++) {
        const response = await limited.app.request(`/chat/${randomUUID()}/history`, {
          headers: { authorization: `Bearer ${token}`, "x-forwarded-for": `198.51.100.${10 + i}` },
        });
        statuses.push(response.status);
        if (response.status === 429) {
          expect(Number(response.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
          expect(await response.json()).toEqual({ error: "Too many requests" });
        }
      }
      expect(statuses).toEqual([404, 404, 404, 404, 429, 429]);
    } finally {
      await limited.close();
    }
  });
});
