/**
 * The Platform API's GraphQL playground (GET /graphql/playground, api/http/graphql-playground.ts) in
 * headless Chromium, against a seeded devnet, its indexer and the Platform API forwarding POST
 * /graphql to it: the page renders GraphiQL with the guide's examples as tabs, runs the first one
 * and shows the indexer's answer, and loads nothing from any other host (every such request is
 * blocked and fails the test, as does a Content-Security-Policy violation or a script error).
 * A screenshot goes to test-artifacts/graphql-playground.png. Run with `npm run test:browser`.
 */
import fs from "node:fs";
import path from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { graphqlExamples } from "../../api/http/graphql-playground";
import { createMemoryRateLimiter } from "../../api/http/rate-limit";
import { ARTIFACTS_DIR, launchChromium, offlinePage } from "../support/browser";
import { startSeededStack, type SeededStack } from "../support/seeded-stack";

const EXAMPLES = graphqlExamples(fs.readFileSync("docs/graphql.md", "utf8"));

let stack: SeededStack;
let base: string;
let browser: Browser;

beforeAll(async () => {
  browser = await launchChromium("playground test");
  stack = await startSeededStack({
    name: "graphql-playground",
    withPonderUrl: true,
    maxConnections: 4,
    rateLimiter: createMemoryRateLimiter({ points: 1_000, windowSeconds: 60, keyPrefix: "graphql-playground" }),
  });
  base = stack.platformUrl;
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

describe("GraphQL playground in Chromium", () => {
  it("renders GraphiQL offline with the guide's examples and runs the first one through POST /graphql", async () => {
    const { context, page, outside, problems } = await offlinePage(browser);
    const forwarded: number[] = [];
    try {
      page.on("response", (response) => {
        if (new URL(response.url()).pathname === "/graphql" && response.request().method() === "POST") forwarded.push(response.status());
      });

      const answer = await page.goto(`${base}/graphql/playground`);
      expect(answer?.status()).toBe(200);
      await page.locator(".graphiql-container").waitFor();
      // one tab per example of the guide, the first one open
      await expect.poll(() => page.locator(".graphiql-tab").count(), { timeout: 20_000 }).toBe(EXAMPLES.length);
      const editor = page.locator(".graphiql-query-editor");
      await expect.poll(async () => (await editor.textContent()) ?? "", { timeout: 20_000 }).toContain("PodsOfDatanet");

      await page.locator(".graphiql-execute-button").click();
      const result = page.locator(".graphiql-response");
      await expect.poll(async () => (await result.textContent()) ?? "", { timeout: 20_000 }).toContain("totalCount");
      const text = (await result.textContent()) ?? "";
      expect(text).toContain('"datanet"');
      expect(text).not.toContain('"errors"');
      // the seed's datanet 1 holds pods 2 and 4 (docs/graphql.md, example 1)
      expect(text.replace(/\s+/g, "")).toContain('"totalCount":2');
      expect(forwarded).toContain(200);

      await page.screenshot({ path: path.join(ARTIFACTS_DIR, "graphql-playground.png"), fullPage: false });
      expect(outside).toEqual([]);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
