/**
 * The API reference of each surface (/docs) in a real browser: headless Chromium (Debian's
 * `chromium` package, or the binary CHROMIUM_PATH names) driven by playwright-core, against the
 * three surfaces as `npm start` serves them (api/server.ts) on a fresh database; no chain is needed.
 * Each page must render every operation of its surface's own /openapi.json, show the documented
 * examples, and load nothing from any host but this one: every other request is blocked and fails
 * the test, as does a Content-Security-Policy violation or a script error. A screenshot of each page
 * goes to test-artifacts/docs-<surface>.png.
 *
 * Run with `npm run test:browser` (CI does); `npm test` leaves it out, so a machine without
 * Chromium still runs every other test.
 */
import path from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ApiServer } from "../../api/server";
import { type ChainlessApi, startChainlessApi } from "../support/api-server";
import { ARTIFACTS_DIR, launchChromium, offlinePage } from "../support/browser";
import { type Document, mediaExample, type Operation, operationsOf } from "../support/openapi";

const SURFACES = ["platform", "chat", "eval"] as const;
type Surface = (typeof SURFACES)[number];

let server: ChainlessApi | undefined;
let api: ApiServer | undefined;
let browser: Browser | undefined;

beforeAll(async () => {
  browser = await launchChromium("docs-page test");
  server = await startChainlessApi("docs-pages");
  api = server.api;
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

/** The first operation whose request body and success response both have an example to compare. */
function operationWithExamples(document: Document) {
  for (const entry of operationsOf(document)) {
    const request = entry.operation.requestBody?.content?.["application/json"];
    const success = Object.entries(entry.operation.responses ?? {}).find(([status]) => status.startsWith("2"));
    const response = success?.[1].content?.["application/json"];
    if (!request || !response || !success) continue;
    const requestExample = mediaExample(document, request);
    const responseExample = mediaExample(document, response);
    if (requestExample && responseExample) return { ...entry, status: success[0], requestExample, responseExample };
  }
  throw new Error("no operation with a JSON request body and a JSON success response");
}

/** Swagger UI's element id of an operation: `operations-<first tag>-<operationId>`. */
const operationElementId = (operation: Operation) =>
  `operations-${(operation.tags?.[0] ?? "default").replace(/\s/g, "_")}-${operation.operationId}`;

describe("API reference pages in Chromium", () => {
  it.each(SURFACES)("%s: /docs lists every operation and its examples, loading nothing from elsewhere", async (surface: Surface) => {
    const base = api!.urls[surface];
    const document = (await (await fetch(`${base}/openapi.json`)).json()) as Document;
    const expected = operationsOf(document).map(({ method, path: route, operationId }) => `${method} ${route} ${operationId}`);
    expect(expected.length).toBeGreaterThan(5);

    const { context, page, outside, problems } = await offlinePage(browser!);
    try {
      const answer = await page.goto(`${base}/docs`);
      expect(answer?.status()).toBe(200);
      await page.locator("#swagger-ui .info .title").waitFor();
      await page.locator("#swagger-ui .opblock").first().waitFor();
      // Swagger UI renders every operation of the document at once (no lazy list): read them all.
      const listed = await page.$$eval("#swagger-ui .opblock", (blocks) =>
        blocks.map((block) => {
          const method = block.querySelector(".opblock-summary-method")?.textContent?.trim() ?? "";
          const route = block.querySelector(".opblock-summary-path")?.getAttribute("data-path") ?? "";
          const operationId = block.querySelector(".opblock-summary-operation-id")?.textContent?.trim() ?? "";
          return `${method} ${route} ${operationId}`;
        }),
      );
      expect([...listed].sort()).toEqual([...expected].sort());

      // One operation opened: the request and response examples shown are the document's.
      const chosen = operationWithExamples(document);
      const block = page.locator(`[id="${operationElementId(chosen.operation)}"]`);
      await block.locator(".opblock-summary").click();
      const requestShown = await block.locator(".body-param__example").textContent();
      expect(JSON.parse(requestShown ?? "")).toEqual(chosen.requestExample.value);
      const responseShown = await block.locator(`tr.response[data-code="${chosen.status}"] .example`).first().textContent();
      expect(JSON.parse(responseShown ?? "")).toEqual(chosen.responseExample.value);

      await page.screenshot({ path: path.join(ARTIFACTS_DIR, `docs-${surface}.png`), fullPage: true });
      expect(outside).toEqual([]);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });
  it("platform: signs in as a devnet wallet from the page, then \"Try it out\" runs a cookie route", async () => {
    const base = api!.urls.platform;
    const document = (await (await fetch(`${base}/openapi.json`)).json()) as Document;
    const createSubnet = operationsOf(document).find(({ operationId }) => operationId === "createSubnet")!;
    const context = await browser!.newContext({ serviceWorkers: "block", viewport: { width: 1280, height: 900 } });
    try {
      const page = await context.newPage();
      await page.goto(`${base}/docs`);
      await page.locator("#devnet-sign-in select[name=account]").selectOption("curatorA");
      await Promise.all([page.waitForURL(`${base}/docs`), page.locator("#devnet-sign-in button[type=submit]").click()]);
      expect((await context.cookies(base)).map(({ name, httpOnly }) => ({ name, httpOnly }))).toEqual([
        { name: "idp-token", httpOnly: true },
      ]);

      const block = page.locator(`[id="${operationElementId(createSubnet.operation)}"]`);
      await block.locator(".opblock-summary").click();
      await block.locator("button.try-out__btn").click();
      await block.locator("button.execute").click();
      const status = block.locator(".live-responses-table tbody .response-col_status").first();
      await status.waitFor();
      expect((await status.textContent())?.trim()).toBe("201");
      await page.screenshot({ path: path.join(ARTIFACTS_DIR, "docs-platform-signed-in.png"), fullPage: false });
    } finally {
      await context.close();
    }
  });
});
