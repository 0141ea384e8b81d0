/**
 * The interactive API reference of a surface: `GET /docs`, Swagger UI (the pinned `swagger-ui-dist`
 * package) reading the surface's own `/openapi.json`. Every asset is served by this process from the
 * npm package, never from a CDN, so the page works on a machine without internet; its
 * Content-Security-Policy tells the browser to load nothing from anywhere else.
 */
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { gzipSync } from "node:zlib";
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import { setCookie } from "hono/cookie";
import { badRequest, forbidden } from "./errors";
import type { AppEnv } from "./types";

const require = createRequire(import.meta.url);
const DIST_DIR = path.dirname(require.resolve("swagger-ui-dist/package.json"));
const SWAGGER_UI_VERSION = (require("swagger-ui-dist/package.json") as { version: string }).version;

export const DOCS_PATH = "/docs";
/** Other names people try for the reference; each redirects to DOCS_PATH. */
const DOCS_ALIASES = ["/docs/", "/reference", "/swagger"];
/** The package version is part of the asset URLs, so a browser may keep them for a year. */
const ASSET_BASE = `${DOCS_PATH}/assets/${SWAGGER_UI_VERSION}`;
const ASSET_CACHE_CONTROL = "public, max-age=31536000, immutable";

/** Starts Swagger UI on the page's element, with this origin's OpenAPI document; no validator badge (it calls out). */
const INITIALIZER = `window.addEventListener("load", function () {
  window.ui = SwaggerUIBundle({
    url: "/openapi.json",
    dom_id: "#swagger-ui",
    presets: [SwaggerUIBundle.presets.apis],
    layout: "BaseLayout",
    deepLinking: true,
    displayOperationId: true,
    displayRequestDuration: true,
    filter: true,
    validatorUrl: null,
  });
});
`;

/** A static asset of a page: a file of an npm package, or the asset's own text. */
export interface PageAsset {
  contentType: string;
  source: { file: string } | { text: string };
}

const ASSETS: Record<string, PageAsset> = {
  "swagger-ui.css": { contentType: "text/css; charset=utf-8", source: { file: "swagger-ui.css" } },
  "index.css": { contentType: "text/css; charset=utf-8", source: { file: "index.css" } },
  "swagger-ui-bundle.js": { contentType: "text/javascript; charset=utf-8", source: { file: "swagger-ui-bundle.js" } },
  "favicon-32x32.png": { contentType: "image/png", source: { file: "favicon-32x32.png" } },
  "favicon-16x16.png": { contentType: "image/png", source: { file: "favicon-16x16.png" } },
  "initializer.js": { contentType: "text/javascript; charset=utf-8", source: { text: INITIALIZER } },
};

/** Read (and gzipped) once per process, on first use, by URL path; every surface shares them. */
const loaded = new Map<string, Promise<LoadedAsset>>();

interface LoadedAsset {
  raw: Uint8Array<ArrayBuffer>;
  gzip: Uint8Array<ArrayBuffer>;
}

function load(key: string, asset: PageAsset, resolveFile: (file: string) => string): Promise<LoadedAsset> {
  let entry = loaded.get(key);
  if (!entry) {
    const read = "file" in asset.source ? readFile(resolveFile(asset.source.file)) : Promise.resolve(Buffer.from(asset.source.text));
    entry = read.then((raw) => ({ raw: new Uint8Array(raw), gzip: new Uint8Array(gzipSync(raw)) }));
    entry.catch(() => loaded.delete(key));
    loaded.set(key, entry);
  }
  return entry;
}

/** Paths below which a page's static assets are served (logged at debug level only: one page view fetches several). */
const ASSET_PREFIXES: string[] = [];

/**
 * Serves `assets` at `${base}/<name>`, gzip-encoded for clients that accept it, cacheable for a
 * year: `base` carries the package version, so a new version has new URLs.
 */
export function mountPageAssets<E extends AppEnv>(
  app: OpenAPIHono<E>,
  base: string,
  assets: Record<string, PageAsset>,
  resolveFile: (file: string) => string,
): void {
  if (!ASSET_PREFIXES.includes(`${base}/`)) ASSET_PREFIXES.push(`${base}/`);
  for (const [name, asset] of Object.entries(assets)) {
    const urlPath = `${base}/${name}`;
    app.get(urlPath, async (c: Context) => {
      const { raw, gzip } = await load(urlPath, asset, resolveFile);
      const gzipped = asset.contentType.startsWith("text/") && /\bgzip\b/.test(c.req.header("accept-encoding") ?? "");
      c.header("Content-Type", asset.contentType);
      c.header("Cache-Control", ASSET_CACHE_CONTROL);
      c.header("X-Content-Type-Options", "nosniff");
      c.header("Vary", "Accept-Encoding");
      if (gzipped) c.header("Content-Encoding", "gzip");
      return c.body(gzipped ? gzip : raw);
    });
  }
}

const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  // Swagger UI sets style attributes from script
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  // "Try it out" calls this same origin
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

/**
 * The reference page's "sign in as a devnet wallet" form (Platform API, local setup only): it sets
 * the cookie the cookie routes read, so "Try it out" works on every operation. `refused` says why
 * it is not offered (production mode, an external identity provider, a chain that is not local).
 */
export type DocsSignIn =
  | { accounts: { label: string; address: string }[]; cookieName: string; sign(account: { label: string; address: string }): Promise<string> }
  | { refused: string };

export const DOCS_SIGN_IN_PATH = `${DOCS_PATH}/sign-in`;
const SIGN_IN_MAX_AGE_SECONDS = 24 * 60 * 60;

function signInForm(signIn: DocsSignIn | undefined): string {
  if (!signIn || "refused" in signIn) return "";
  const options = signIn.accounts
    .map(({ label, address }) => `<option value="${escapeHtml(label)}">${escapeHtml(label)} (${escapeHtml(address)})</option>`)
    .join("");
  return `
    <form id="devnet-sign-in" method="post" action="${DOCS_SIGN_IN_PATH}" style="font-family: sans-serif; max-width: 1460px; margin: 12px auto 0; padding: 0 20px;">
      <label>Local devnet: sign in as <select name="account">${options}</select></label>
      <button type="submit">Sign in</button>
      <span>sets the <code>${escapeHtml(signIn.cookieName)}</code> cookie, so "Try it out" works on the cookie routes</span>
    </form>`;
}

function page(title: string, signIn?: DocsSignIn): string {
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>${escapeHtml(title)} · API reference</title>
    <link rel="stylesheet" href="${ASSET_BASE}/swagger-ui.css">
    <link rel="stylesheet" href="${ASSET_BASE}/index.css">
    <link rel="icon" type="image/png" href="${ASSET_BASE}/favicon-32x32.png" sizes="32x32">
    <link rel="icon" type="image/png" href="${ASSET_BASE}/favicon-16x16.png" sizes="16x16">
  </head>
  <body>${signInForm(signIn)}
    <div id="swagger-ui"></div>
    <script src="${ASSET_BASE}/swagger-ui-bundle.js"></script>
    <script src="${ASSET_BASE}/initializer.js"></script>
  </body>
</html>
`;
}

/** The reference page, its assets and its aliases: excluded from rate limits (see the chat server's). */
export function isDocsPath(requestPath: string): boolean {
  return requestPath === DOCS_PATH || requestPath.startsWith(`${DOCS_PATH}/`) || DOCS_ALIASES.includes(requestPath);
}

/** A static asset of the reference page or another page served from a package (the GraphQL playground). */
export function isDocsAssetPath(requestPath: string): boolean {
  return ASSET_PREFIXES.some((prefix) => requestPath.startsWith(prefix));
}

/**
 * Serves the surface's API reference at `GET /docs` (also reached from `/docs/`, `/reference` and
 * `/swagger`), built in the browser from the surface's `/openapi.json` (see `mountOpenApi`).
 * Unknown paths below `/docs` fall through to the app's flat 404.
 */
export function mountDocs<E extends AppEnv>(
  app: OpenAPIHono<E>,
  { title, signIn }: { title: string; signIn?: DocsSignIn },
): void {
  const html = page(title, signIn);
  if (signIn) {
    app.post(DOCS_SIGN_IN_PATH, async (c) => {
      if ("refused" in signIn) throw forbidden(signIn.refused);
      const form = c.req.header("content-type")?.startsWith("application/x-www-form-urlencoded") ? await c.req.parseBody() : {};
      const account = signIn.accounts.find(({ label }) => label === form.account);
      if (!account) throw badRequest(`account: expected one of ${signIn.accounts.map(({ label }) => label).join(", ")}`);
      setCookie(c, signIn.cookieName, await signIn.sign(account), {
        path: "/",
        httpOnly: true,
        sameSite: "Lax",
        maxAge: SIGN_IN_MAX_AGE_SECONDS,
      });
      return c.redirect(DOCS_PATH, 303);
    });
  }
  app.get(DOCS_PATH, (c) => {
    c.header("Cache-Control", "no-cache");
    c.header("Content-Security-Policy", CONTENT_SECURITY_POLICY);
    c.header("X-Content-Type-Options", "nosniff");
    return c.html(html);
  });
  for (const alias of DOCS_ALIASES) app.get(alias, (c) => c.redirect(DOCS_PATH, 302));
  mountPageAssets(app, ASSET_BASE, ASSETS, (file) => path.join(DIST_DIR, file));
}
