/**
 * What each surface says about itself: `/` links its reference, OpenAPI document, guides, health,
 * readiness and metrics; the document's `info.description` explains every credential; the guides
 * are served as Markdown; and on a local setup the Platform API's reference page signs in as a
 * devnet wallet (a real cookie the cookie routes accept), refused outside it.
 */
import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../../api/http/logger";
import { createMemoryRateLimiter } from "../../api/http/rate-limit";
import { createPlatformApp } from "../../api/platform/app";
import { loadConfig } from "../../api/config";
import { createPlatformRuntime } from "../../api/platform/app-services";
import type { ApiDeps } from "../../api/deps";
import { localAccountAddresses } from "../../chain/local-accounts";
import { startChainlessApi, type ChainlessApi } from "../support/api-server";
import { documentOnlySurfaces, type SurfaceName } from "../support/surfaces";
import { subnetDraftBody } from "../platform/harness";

const SURFACES: SurfaceName[] = ["platform", "chat", "eval"];
const surfaces = documentOnlySurfaces();
afterAll(() => surfaces.cleanup());

const form = (fields: Record<string, string>) => ({
  method: "POST",
  headers: { "content-type": "application/x-www-form-urlencoded" },
  body: new URLSearchParams(fields).toString(),
  redirect: "manual" as const,
});

describe("GET / and the guides", () => {
  it.each(SURFACES)("%s: / links the reference, the document, health, readiness, metrics and guides that resolve", async (surface) => {
    const app = surfaces.apps[surface];
    const response = await app.request("/");
    expect(response.status).toBe(200);
    const index = (await response.json()) as Record<string, unknown> & { guides: Record<string, string> };
    expect(index).toMatchObject({ docs: "/docs", openapi: "/openapi.json", health: "/health", ready: "/ready", metrics: "/metrics" });
    expect(Object.keys(index.guides).length).toBeGreaterThan(0);
    for (const link of [index.docs, index.openapi] as string[]) expect((await app.request(link)).status, link).toBe(200);
    for (const [name, link] of Object.entries(index.guides)) {
      const guide = await app.request(link);
      expect(guide.status, link).toBe(200);
      expect(guide.headers.get("content-type")).toBe("text/markdown; charset=utf-8");
      expect(await guide.text()).toBe(fs.readFileSync(`docs/${name}.md`, "utf8"));
    }
  });

  it("an unknown guide, or a path out of docs/, is the flat 404", async () => {
    for (const path of ["/docs/guides/nope.md", "/docs/guides/..%2Fpackage.json", "/docs/guides/README"]) {
      const response = await surfaces.apps.platform.request(path);
      expect(response.status, path).toBe(404);
      expect(await response.json()).toEqual({ error: expect.any(String) });
    }
  });

  it.each(SURFACES)("%s: info.description names every credential scheme and links the guides", async (surface) => {
    const document = (await (await surfaces.apps[surface].request("/openapi.json")).json()) as {
      info: { description?: string };
      components?: { securitySchemes?: Record<string, unknown> };
    };
    const description = document.info.description ?? "";
    const schemes = Object.keys(document.components?.securitySchemes ?? {});
    expect(schemes.length).toBeGreaterThan(0);
    for (const scheme of schemes) expect(description, scheme).toContain(`\`${scheme}\``);
    expect(description).toMatch(/## Credentials/);
    expect(description).toMatch(/\]\(\/docs\/guides\/[a-z-]+\.md\)/);
  });
});

describe("devnet sign-in on the Platform API's reference page", () => {
  let server: ChainlessApi;
  let base: string;
  beforeAll(async () => {
    server = await startChainlessApi("docs-sign-in");
    base = server.api.urls.platform;
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("offers the local accounts, sets a cookie the cookie routes accept, and sends the browser back to /docs", async () => {
    const page = await (await fetch(`${base}/docs`)).text();
    for (const { label } of localAccountAddresses()) expect(page).toContain(`<option value="${label}">`);

    const signIn = await fetch(`${base}/docs/sign-in`, form({ account: "curatorA" }));
    expect(signIn.status).toBe(303);
    expect(signIn.headers.get("location")).toBe("/docs");
    const setCookie = signIn.headers.get("set-cookie") ?? "";
    expect(setCookie).toMatch(/^idp-token=[\w-]+\.[\w-]+\.[\w-]+;/);
    expect(setCookie).toMatch(/HttpOnly/);
    const cookie = setCookie.split(";")[0]!;

    const body = JSON.stringify(subnetDraftBody());
    const headers = { "content-type": "application/json" };
    expect((await fetch(`${base}/api/v1/me/subnets`, { method: "POST", headers, body })).status).toBe(401);
    const created = await fetch(`${base}/api/v1/me/subnets`, { method: "POST", headers: { ...headers, cookie }, body });
    expect(created.status).toBe(201);
  });

  it("refuses an unknown account or a body that is not the form, with the flat 400", async () => {
    for (const init of [
      form({ account: "mallory" }),
      { method: "POST", headers: { "content-type": "application/json" }, body: '{"account":"curatorA"}' },
    ]) {
      const response = await fetch(`${base}/docs/sign-in`, init);
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual({ error: expect.stringMatching(/^account: expected one of deployer, /) });
    }
  });

  it.each([
    [{ NODE_ENV: "production" }, "Devnet sign-in is not available in production mode"],
    [{ IDP_JWKS_URL: "https://idp.invalid/.well-known/jwks.json" }, "Devnet sign-in is available only with the local identity provider"],
  ])("is refused with %j: 403, no form on the page", async (env, reason) => {
    const app = createPlatformApp({
      config: loadConfig({ LOG_LEVEL: "silent" }),
      pool: {} as ApiDeps["pool"],
      db: {} as ApiDeps["db"],
      logger: createLogger("silent"),
      rateLimiter: createMemoryRateLimiter({ points: 100, windowSeconds: 60, keyPrefix: "sign-in-refused" }),
      platform: createPlatformRuntime({ env }),
    });
    const response = await app.request("/docs/sign-in", form({ account: "curatorA" }));
    expect(response.status).toBe(403);
    expect(await response.json()).toEqual({ error: reason });
    expect(response.headers.get("set-cookie")).toBeNull();
    expect(await (await app.request("/docs")).text()).not.toContain("devnet-sign-in");
  });
});
