/**
 * Headless Chromium for the browser tests (`npm run test:browser`): Debian's `chromium` package or
 * the binary CHROMIUM_PATH names, driven by playwright-core. `offlinePage` opens a page that may
 * load from this machine only: every request elsewhere is blocked and recorded in `outside`;
 * script errors, console errors and Content-Security-Policy violations are recorded in `problems`.
 */
import fs from "node:fs";
import { fileURLToPath } from "node:url";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";

const CHROMIUM_PATH = process.env.CHROMIUM_PATH || "/usr/bin/chromium";
/** Screenshots of the browser tests. */
export const ARTIFACTS_DIR = fileURLToPath(new URL("../../test-artifacts/", import.meta.url));

/** Chromium, or an error saying how to get it (`what` names the test that needs it). */
export async function launchChromium(what: string): Promise<Browser> {
  if (!fs.existsSync(CHROMIUM_PATH)) {
    throw new Error(
      `Chromium not found at ${CHROMIUM_PATH}. The ${what} needs it: install Debian's package ` +
        "(`apt-get install chromium`) or point CHROMIUM_PATH at a Chromium or Chrome binary.",
    );
  }
  fs.mkdirSync(ARTIFACTS_DIR, { recursive: true });
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: ["--no-sandbox", "--headless=new"] });
}

function isLocal(url: string): boolean {
  const { protocol, hostname } = new URL(url);
  if (protocol === "data:" || protocol === "blob:" || protocol === "about:") return true;
  return hostname === "127.0.0.1" || hostname === "localhost" || hostname === "[::1]";
}

export interface OfflinePage {
  context: BrowserContext;
  page: Page;
  /** Requests and websockets to any other host (each was blocked). */
  outside: string[];
  /** Page errors, console errors and CSP violations. */
  problems: string[];
}

/** A new context and page that load from this machine only; close `context` when done. */
export async function offlinePage(browser: Browser): Promise<OfflinePage> {
  const context = await browser.newContext({ serviceWorkers: "block", viewport: { width: 1280, height: 900 } });
  const outside: string[] = [];
  const problems: string[] = [];
  await context.route("**/*", (route) => {
    const url = route.request().url();
    if (isLocal(url)) return route.continue();
    outside.push(url);
    return route.abort("blockedbyclient");
  });
  const page = await context.newPage();
  page.on("websocket", (socket) => outside.push(socket.url()));
  page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
  page.on("console", (message) => {
    if (message.type() === "error") problems.push(`console error: ${message.text()}`);
  });
  // what the page's Content-Security-Policy blocks never becomes a request: report it too
  await page.addInitScript({
    content: `document.addEventListener("securitypolicyviolation", (event) =>
      console.error("CSP violation: " + event.violatedDirective + " " + event.blockedURI));`,
  });
  return { context, page, outside, problems };
}
