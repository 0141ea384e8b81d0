/**
 * CORS of the three surfaces from CORS_ORIGINS (api/http/cors.ts, applied once in createApp):
 * listed origins are echoed with credentials, others get no Access-Control-Allow-Origin; the
 * default `*` allows any origin without credentials; `none` sends no CORS headers.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createChatApp } from "../../api/chat/app";
import { loadConfig } from "../../api/config";
import { createEvalApp } from "../../api/eval/app";
import { createLogger } from "../../api/http/logger";
import { createMemoryRateLimiter } from "../../api/http/rate-limit";
import { createPlatformApp } from "../../api/platform/app";
import { BASE, newKey, startEvalHarness, type EvalHarness } from "../eval/support";

const APP_ORIGIN = "https://app.example.org";
const OTHER_ORIGIN = "http://localhost:5173";
const REFUSED_ORIGIN = "https://evil.example.net";

let h: EvalHarness;

beforeAll(async () => {
  h = await startEvalHarness();
});

afterAll(async () => {
  await h?.close();
});

function deps(env: Record<string, string>, points = 1_000) {
  return {
    config: loadConfig({ DATABASE_URL: h.database.url, LOG_LEVEL: "silent", PONDER_URL: "http://127.0.0.1:9", ...env }),
    pool: h.store.pool,
    db: h.store.db,
    logger: createLogger("silent"),
    rateLimiter: createMemoryRateLimiter({ points, windowSeconds: 60, keyPrefix: `cors-${Math.random()}` }),
  };
}

const listed = { CORS_ORIGINS: `${APP_ORIGIN}, ${OTHER_ORIGIN}` };

const preflight = (origin: string, method = "POST", headers = "content-type, authorization") => ({
  method: "OPTIONS",
  headers: { origin, "access-control-request-method": method, "access-control-request-headers": headers },
});

const allowOrigin = (response: Response) => response.headers.get("access-control-allow-origin");

describe("CORS with listed origins", () => {
  it("allows a listed origin's preflight, with credentials and the methods and headers a client sends", async () => {
    const app = createPlatformApp(deps(listed));
    const response = await app.request("/api/v1/me/pods", preflight(APP_ORIGIN));
    expect(response.status).toBe(204);
    expect(allowOrigin(response)).toBe(APP_ORIGIN);
    expect(response.headers.get("access-control-allow-credentials")).toBe("true");
    expect(response.headers.get("access-control-allow-methods")?.split(",")).toContain("POST");
    const allowedHeaders = response.headers.get("access-control-allow-headers")?.toLowerCase().split(",");
    expect(allowedHeaders).toEqual(expect.arrayContaining(["authorization", "content-type"]));
    expect(response.headers.get("vary")).toContain("Origin");
    expect(Number(response.headers.get("access-control-max-age"))).toBeGreaterThan(0);
  });

  it("gives a refused origin no Access-Control-Allow-Origin, on preflights and on requests", async () => {
    const app = createPlatformApp(deps(listed));
    const refusedPreflight = await app.request("/api/v1/me/pods", preflight(REFUSED_ORIGIN));
    expect(allowOrigin(refusedPreflight)).toBeNull();
    const refused = await app.request("/api/v1/me/pods", { headers: { origin: REFUSED_ORIGIN } });
    expect(refused.status).toBe(401); // the browser, not the server, withholds the answer
    expect(allowOrigin(refused)).toBeNull();
  });

  it("exposes the rate-limit headers and Retry-After to the listed origin, also on a 429", async () => {
    const app = createEvalApp({ ...deps(listed, 1), keyIssuanceLimiter: createMemoryRateLimiter({ points: 10, windowSeconds: 60, keyPrefix: "cors-keys" }) });
    const key = await newKey(h, "cors-account");
    const request = { headers: { origin: OTHER_ORIGIN, authorization: `Bearer ${key}` } };
    const first = await app.request(`${BASE}/agents/eval-requests/pending`, request);
    expect(first.status).toBe(200);
    expect(allowOrigin(first)).toBe(OTHER_ORIGIN);
    const exposed = first.headers.get("access-control-expose-headers")?.toLowerCase().split(",");
    expect(exposed).toEqual(expect.arrayContaining(["ratelimit-limit", "ratelimit-remaining", "ratelimit-reset", "retry-after"]));
    expect(first.headers.get("vary")).toContain("Origin");

    const refused = await app.request(`${BASE}/agents/eval-requests/pending`, request);
    expect(refused.status).toBe(429);
    expect(allowOrigin(refused)).toBe(OTHER_ORIGIN);
    expect(refused.headers.get("retry-after")).not.toBeNull();
    expect(refused.headers.get("access-control-expose-headers")?.toLowerCase()).toContain("retry-after");
  });

  it("is the same on all three surfaces, and preflights are never rate limited", async () => {
    const apps = {
      platform: createPlatformApp(deps(listed, 1)),
      chat: createChatApp(deps(listed, 1)),
      eval: createEvalApp({ ...deps(listed, 1), keyIssuanceLimiter: createMemoryRateLimiter({ points: 1, windowSeconds: 60, keyPrefix: "cors-k2" }) }),
    };
    const paths = { platform: "/api/v1/me/pods", chat: "/auth/nonce", eval: `${BASE}/keys` };
    for (const [name, app] of Object.entries(apps)) {
      for (let i = 0; i < 3; i++) {
        const response = await app.request(paths[name as keyof typeof paths], preflight(APP_ORIGIN));
        expect(response.status, name).toBe(204);
        expect(allowOrigin(response), name).toBe(APP_ORIGIN);
        expect(allowOrigin(await app.request(paths[name as keyof typeof paths], preflight(REFUSED_ORIGIN))), name).toBeNull();
      }
    }
  });
});

describe("CORS defaults and settings", () => {
  it("allows any origin without credentials by default", async () => {
    const app = createChatApp(deps({}));
    const response = await app.request("/auth/nonce", preflight(REFUSED_ORIGIN));
    expect(response.status).toBe(204);
    expect(allowOrigin(response)).toBe("*");
    expect(response.headers.get("access-control-allow-credentials")).toBeNull();
    const health = await app.request("/health", { headers: { origin: OTHER_ORIGIN } });
    expect(allowOrigin(health)).toBe("*");
    expect(health.headers.get("access-control-allow-credentials")).toBeNull();
  });

  it("sends no CORS headers with CORS_ORIGINS=none", async () => {
    const app = createPlatformApp(deps({ CORS_ORIGINS: "none" }));
    const response = await app.request("/health", { headers: { origin: APP_ORIGIN } });
    expect(response.status).toBe(200);
    expect(allowOrigin(response)).toBeNull();
    expect(response.headers.get("access-control-allow-credentials")).toBeNull();
  });

  it("refuses settings that are not origins, or `*` mixed with origins", () => {
    expect(loadConfig({ CORS_ORIGINS: "https://a.example.org, http://localhost:5173" }).corsOrigins).toEqual([
      "https://a.example.org",
      "http://localhost:5173",
    ]);
    expect(loadConfig({ CORS_ORIGINS: "*" }).corsOrigins).toBe("*");
    for (const bad of ["https://a.example.org/app", "*,https://a.example.org", "a.example.org", "https://A.example.org", "ftp://a.example.org"]) {
      expect(() => loadConfig({ CORS_ORIGINS: bad }), bad).toThrow(/CORS_ORIGINS/);
    }
  });
});
