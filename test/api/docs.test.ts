/**
 * The API reference at /docs of each surface, over HTTP (the page in a browser: test/docs/): the
 * page and every asset it names come from this process and the pinned swagger-ui-dist package,
 * never from another host; aliases redirect; unknown paths keep the flat 404; the page is never
 * rate limited and its assets stay out of the info-level request log.
 */
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { Writable } from "node:stream";
import { gunzipSync } from "node:zlib";
import pino from "pino";
import { afterAll, describe, expect, it } from "vitest";
import { documentOnlySurfaces, type SurfaceName } from "../support/surfaces";

const SURFACES: SurfaceName[] = ["platform", "chat", "eval"];
const surfaces = documentOnlySurfaces();
afterAll(() => surfaces.cleanup());

const require = createRequire(import.meta.url);
const distDir = path.dirname(require.resolve("swagger-ui-dist/package.json"));
const swaggerUiVersion = (require("swagger-ui-dist/package.json") as { version: string }).version;

/** Every URL the page loads: stylesheets, icons and scripts. */
function referencedUrls(html: string): string[] {
  return [...html.matchAll(/<(?:link|script)\b[^>]*?\b(?:href|src)="([^"]+)"/g)].map((match) => match[1]!);
}

describe("GET /docs", () => {
  it.each(SURFACES)("%s: serves the reference page with a policy that allows this origin only", async (surface) => {
    const response = await surfaces.apps[surface].request("/docs");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/html/);
    expect(response.headers.get("cache-control")).toBe("no-cache");
    const policy = response.headers.get("content-security-policy") ?? "";
    expect(policy).toContain("default-src 'none'");
    expect(policy).toContain("script-src 'self'");
    expect(policy).toContain("connect-src 'self'");
    const html = await response.text();
    expect(html).toContain('<div id="swagger-ui"></div>');
    expect(html).not.toMatch(/(?:https?:)?\/\/[a-z0-9.-]+\.[a-z]{2,}/i);
    const urls = referencedUrls(html);
    expect(urls.length).toBeGreaterThanOrEqual(4);
    for (const url of urls) expect(url.startsWith(`/docs/assets/${swaggerUiVersion}/`)).toBe(true);
  });

  it.each(SURFACES)("%s: serves every asset of the page from the package, cacheable for a year", async (surface) => {
    const app = surfaces.apps[surface];
    const urls = referencedUrls(await (await app.request("/docs")).text());
    for (const url of urls) {
      const response = await app.request(url);
      expect(response.status, url).toBe(200);
      expect(response.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
      const body = Buffer.from(await response.arrayBuffer());
      const name = url.split("/").pop()!;
      const expectedType = name.endsWith(".css") ? /^text\/css/ : name.endsWith(".js") ? /^text\/javascript/ : /^image\/png$/;
      expect(response.headers.get("content-type")).toMatch(expectedType);
      if (name !== "initializer.js") expect(body.equals(fs.readFileSync(path.join(distDir, name)))).toBe(true);
      else {
        expect(body.toString()).toContain('url: "/openapi.json"');
        expect(body.toString()).toContain("validatorUrl: null");
        expect(body.toString()).not.toMatch(/https?:\/\//);
      }
    }
  });

  it("sends the scripts gzipped to a client that accepts it, unchanged once decompressed", async () => {
    const url = `/docs/assets/${swaggerUiVersion}/swagger-ui-bundle.js`;
    const response = await surfaces.apps.platform.request(url, { headers: { "accept-encoding": "gzip, deflate, br" } });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-encoding")).toBe("gzip");
    expect(response.headers.get("vary")).toBe("Accept-Encoding");
    const body = gunzipSync(Buffer.from(await response.arrayBuffer()));
    expect(body.equals(fs.readFileSync(path.join(distDir, "swagger-ui-bundle.js")))).toBe(true);
  });

  it.each(SURFACES)("%s: /docs/, /reference and /swagger redirect to /docs", async (surface) => {
    for (const alias of ["/docs/", "/reference", "/swagger"]) {
      const response = await surfaces.apps[surface].request(alias);
      expect(response.status, alias).toBe(302);
      expect(response.headers.get("location")).toBe("/docs");
    }
  });

  it.each(SURFACES)("%s: an unknown path below /docs is the flat 404", async (surface) => {
    for (const unknown of [`/docs/assets/${swaggerUiVersion}/index.html`, "/docs/assets/0.0.1/swagger-ui.css", "/docs/other"]) {
      const response = await surfaces.apps[surface].request(unknown);
      expect(response.status, unknown).toBe(404);
      expect(await response.json()).toEqual({ error: "Not found" });
    }
  });

  it("is not part of the surfaces' OpenAPI documents", async () => {
    for (const surface of SURFACES) {
      const document = (await (await surfaces.apps[surface].request("/openapi.json")).json()) as { paths: object };
      expect(Object.keys(document.paths).filter((route) => route.startsWith("/docs"))).toEqual([]);
    }
  });

  it("is never rate limited, on any surface", async () => {
    const limited = documentOnlySurfaces({ rateLimitPoints: 1 });
    try {
      for (const surface of SURFACES) {
        const app = limited.apps[surface];
        for (let i = 0; i < 3; i++) {
          expect((await app.request("/docs")).status).toBe(200);
          expect((await app.request(`/docs/assets/${swaggerUiVersion}/initializer.js`)).status).toBe(200);
        }
      }
      // the limiter itself is live: the chat server limits every other path
      const chat = limited.apps.chat;
      const statuses = [];
      for (let i = 0; i < 3; i++) statuses.push((await chat.request("/openapi.json")).status);
      expect(statuses).toContain(429);
    } finally {
      limited.cleanup();
    }
  });

  it("logs a page view at info level and its assets at debug level only", async () => {
    const lines: { level: number; path?: string; msg?: string }[] = [];
    const sink = new Writable({
      write(chunk, _encoding, done) {
        for (const line of String(chunk).split("\n").filter(Boolean)) lines.push(JSON.parse(line));
        done();
      },
    });
    const logged = documentOnlySurfaces({ logger: pino({ level: "debug" }, sink) });
    try {
      await logged.apps.platform.request("/docs");
      await logged.apps.platform.request(`/docs/assets/${swaggerUiVersion}/swagger-ui.css`);
      await logged.apps.platform.request(`/docs/assets/${swaggerUiVersion}/missing.css`);
      const requests = lines.filter((line) => line.msg === "request");
      const levelOf = (requestPath: string) => requests.find((line) => line.path === requestPath)?.level;
      expect(levelOf("/docs")).toBe(pino.levels.values.info);
      expect(levelOf(`/docs/assets/${swaggerUiVersion}/swagger-ui.css`)).toBe(pino.levels.values.debug);
      expect(levelOf(`/docs/assets/${swaggerUiVersion}/missing.css`)).toBe(pino.levels.values.info);
    } finally {
      logged.cleanup();
    }
  });
});
