import { exportJWK, generateKeyPair, SignJWT } from "jose";
import { rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Context } from "hono";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createDb, type Database } from "../../api/db/client";
import { runMigrations } from "../../api/db/migrate";
import { createRouter, createTestApp } from "../../api/http/create-app";
import {
  IDP_COOKIE,
  loadIdpConfig,
  localIdpKeyPair,
  authenticateUser,
  signLocalIdpToken,
  type IdpConfig,
  type PlatformUser,
} from "../../api/http/auth/idp-cookie";
import { useFreshDatabase, type FreshDatabase } from "../support/database";

const keyFile = path.join(os.tmpdir(), `idp-test-${process.pid}-${Date.now()}.json`);
const WALLET = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
let database: FreshDatabase;
let store: Database;
let config: IdpConfig;

beforeAll(async () => {
  database = await useFreshDatabase();
  await runMigrations(database.url);
  store = createDb(database.url);
  config = await loadIdpConfig({ IDP_LOCAL_KEY_FILE: keyFile });
});

afterAll(async () => {
  await store?.pool.end();
  await database?.drop();
  rmSync(keyFile, { force: true });
});

function app() {
  const router = createRouter();
  router.use("/me", async (c, next) => {
    const { principal } = await authenticateUser(c, store.db, config);
    c.set("user" as never, principal as never);
    await next();
  });
  router.get("/me", (c) => c.json((c as unknown as Context<{ Variables: { user: PlatformUser } }>).get("user")));
  return createTestApp(router);
}

const withCookie = (token: string) => ({ headers: { Cookie: `${IDP_COOKIE}=${token}` } });
const sign = async (claims: Parameters<typeof signLocalIdpToken>[0], options: Record<string, unknown> = {}) =>
  signLocalIdpToken(claims, { privateJwk: (await localIdpKeyPair(keyFile)).privateJwk, ...options });

describe("identity-provider cookie", () => {
  it("accepts a token signed by the identity provider and links the user to the token's wallet", async () => {
    const response = await app().request("/me", withCookie(await sign({ sub: "alice", wallet: WALLET, username: "alice" })));
    expect(response.status).toBe(200);
    const user = (await response.json()) as { id: string };
    expect(user).toMatchObject({ idpSubject: "alice", walletAddress: WALLET.toLowerCase(), username: "alice" });
    const again = await app().request("/me", withCookie(await sign({ sub: "alice", wallet: WALLET })));
    expect(((await again.json()) as { id: string }).id).toBe(user.id);
  });

  it("moves a wallet to the account whose token claims it last", async () => {
    const wallet = "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC";
    const first = await app().request("/me", withCookie(await sign({ sub: "carol", wallet })));
    const second = await app().request("/me", withCookie(await sign({ sub: "dave", wallet })));
    expect(second.status).toBe(200);
    expect(((await second.json()) as { walletAddress: string }).walletAddress).toBe(wallet.toLowerCase());
    expect(first.status).toBe(200);
    const carol = await app().request("/me", withCookie(await sign({ sub: "carol" })));
    expect(((await carol.json()) as { walletAddress: string | null }).walletAddress).toBeNull();
  });

  it("takes a token verified before as verified until its expiry, then refuses it", async () => {
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() });
    try {
      const token = await sign({ sub: "dora" }, { expiresIn: "30s" });
      expect((await app().request("/me", withCookie(token))).status).toBe(200);
      vi.advanceTimersByTime(20_000);
      expect((await app().request("/me", withCookie(token))).status).toBe(200);
      // past its exp (30 s), within the minute a verification is remembered: refused all the same
      vi.advanceTimersByTime(11_000);
      expect((await app().request("/me", withCookie(token))).status).toBe(401);
    } finally {
      vi.useRealTimers();
    }
  });

  it.each([
    ["a missing cookie", async () => undefined],
    ["garbage", async () => "not-a-jwt"],
    ["an expired token", async () => sign({ sub: "bob" }, { expiresIn: -10 })],
    ["another issuer", async () => sign({ sub: "bob" }, { issuer: "someone-else" })],
    ["another audience", async () => sign({ sub: "bob" }, { audience: "other-app" })],
    [
      "a key the provider does not hold",
      async () => {
        const { privateKey } = await generateKeyPair("ES256", { extractable: true });
        const jwk = { ...(await exportJWK(privateKey)), kid: "local-idp-1", alg: "ES256" };
        return signLocalIdpToken({ sub: "mallory" }, { privateJwk: jwk });
      },
    ],
    [
      "an unsigned token",
      async () =>
        new SignJWT({}).setProtectedHeader({ alg: "HS256" }).setSubject("x").setIssuer("local-idp")
          .setAudience("datamarket-platform").setExpirationTime("1h").sign(new Uint8Array(32)),
    ],
  ])("answers 401 Unauthorized for %s", async (_name, token) => {
    const value = await token();
    const response = await app().request("/me", value ? withCookie(value) : {});
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({ error: "Unauthorized" });
  });
});
