/**
 * GraphQL through the Platform API: `POST /graphql` forwards a query to the indexer's GraphQL
 * endpoint (`PONDER_URL` + `/graphql`), and `GET /graphql/playground` is GraphiQL, served with
 * React from their npm packages (UMD builds) like `/docs` serves Swagger UI. Ponder's own
 * playground (`GET /graphql` on the indexer) loads its scripts from a CDN and stays at "Loading…"
 * offline; this one loads nothing from anywhere else, and talks to this origin only, so its
 * Content-Security-Policy can say so. The playground opens with the example queries of
 * docs/graphql.md as tabs.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import { type PageAsset, mountPageAssets } from "./docs";
import { HttpError, badRequest, serviceUnavailable } from "./errors";
import type { AppEnv } from "./types";

const require = createRequire(import.meta.url);
const packageDir = (name: string) => path.dirname(require.resolve(`${name}/package.json`));
const packageVersion = (name: string) => (require(`${name}/package.json`) as { version: string }).version;

export const GRAPHQL_PATH = "/graphql";
export const GRAPHQL_PLAYGROUND_PATH = `${GRAPHQL_PATH}/playground`;
/** Every package's version is in the asset URLs, so a browser may keep them for a year. */
const ASSET_BASE = `${GRAPHQL_PLAYGROUND_PATH}/assets/graphiql-${packageVersion("graphiql")}-react-${packageVersion("react")}`;
/** Where the playground's example tabs come from (read from the working directory, as the guides are). */
const GUIDE_FILE = path.join("docs", "graphql.md");
/** How long the indexer may take to start answering a forwarded query. */
const UPSTREAM_TIMEOUT_MS = 30_000;
const UNAVAILABLE = "GraphQL endpoint (indexer) unavailable";

export interface GraphqlExample {
  /** The heading the query sits under in the guide. */
  title: string;
  query: string;
}

/** The fenced ```graphql blocks of a Markdown text, each with the nearest heading above it. */
export function graphqlExamples(markdown: string): GraphqlExample[] {
  const examples: GraphqlExample[] = [];
  let heading = "";
  const lines = markdown.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? "";
    const title = /^#{1,6}\s+(.*)$/.exec(line);
    if (title) heading = title[1]?.trim() ?? "";
    if (line.trim() !== "```graphql") continue;
    const body: string[] = [];
    for (i++; i < lines.length && lines[i]?.trim() !== "```"; i++) body.push(lines[i] ?? "");
    examples.push({ title: heading, query: body.join("\n").trim() });
  }
  return examples;
}

function guideExamples(): GraphqlExample[] {
  try {
    return graphqlExamples(readFileSync(GUIDE_FILE, "utf8"));
  } catch {
    return []; // a deployment without docs/ opens on the default query
  }
}

const DEFAULT_QUERY = `# Pods, newest first; see docs/graphql.md for more
query Pods {
  pods(orderBy: "id", orderDirection: "desc", limit: 10) {
    items { id owner subnetId validityEpoch cumulativeUpVotes }
    pageInfo { hasNextPage endCursor }
    totalCount
  }
}`;

/** Starts GraphiQL on this origin's `/graphql`, one tab per example of the guide. */
function initializer(examples: GraphqlExample[]): string {
  const tabs = examples.length > 0 ? examples.map(({ title, query }) => ({ query: `# ${title}\n${query}` })) : [{ query: DEFAULT_QUERY }];
  return `(function () {
  var fetcher = GraphiQL.createFetcher({ url: ${JSON.stringify(GRAPHQL_PATH)} });
  var root = ReactDOM.createRoot(document.getElementById("graphiql"));
  root.render(React.createElement(GraphiQL, { fetcher: fetcher, defaultTabs: ${JSON.stringify(tabs)}, defaultEditorToolsVisibility: true }));
})();
`;
}

const STYLE = "html, body, #graphiql { height: 100%; margin: 0; }\n";

function assets(examples: GraphqlExample[]): Record<string, { asset: PageAsset; dir: string }> {
  const js = "text/javascript; charset=utf-8";
  return {
    "react.production.min.js": { dir: packageDir("react"), asset: { contentType: js, source: { file: "umd/react.production.min.js" } } },
    "react-dom.production.min.js": {
      dir: packageDir("react-dom"),
      asset: { contentType: js, source: { file: "umd/react-dom.production.min.js" } },
    },
    "graphiql.min.js": { dir: packageDir("graphiql"), asset: { contentType: js, source: { file: "graphiql.min.js" } } },
    "graphiql.min.css": { dir: packageDir("graphiql"), asset: { contentType: "text/css; charset=utf-8", source: { file: "graphiql.min.css" } } },
    "page.css": { dir: "", asset: { contentType: "text/css; charset=utf-8", source: { text: STYLE } } },
    "initializer.js": { dir: "", asset: { contentType: js, source: { text: initializer(examples) } } },
  };
}

const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  // GraphiQL and CodeMirror set style attributes from script
  "style-src 'self' 'unsafe-inline'",
  // the fonts are data: URLs inside graphiql.min.css; icons are inline SVG
  "img-src 'self' data:",
  "font-src 'self' data:",
  // queries go to this origin's POST /graphql
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

const PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>GraphQL playground · Data market</title>
    <link rel="stylesheet" href="${ASSET_BASE}/graphiql.min.css">
    <link rel="stylesheet" href="${ASSET_BASE}/page.css">
  </head>
  <body>
    <div id="graphiql">Loading the playground…</div>
    <script src="${ASSET_BASE}/react.production.min.js"></script>
    <script src="${ASSET_BASE}/react-dom.production.min.js"></script>
    <script src="${ASSET_BASE}/graphiql.min.js"></script>
    <script src="${ASSET_BASE}/initializer.js"></script>
  </body>
</html>
`;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * Mounts the playground and the forwarding route. The forwarded request carries the query only
 * (never the caller's cookies or headers); the answer is the indexer's GraphQL answer as it is
 * (GraphQL errors included, with Ponder's status, 200), streamed. An indexer that cannot be
 * reached, does not answer within 30 s or fails (5xx) is 503 `{"error": ...}`. The surface's
 * body limit applies; `rateLimit` charges the caller's budget as on the REST routes.
 */
export function mountGraphqlPlayground<E extends AppEnv>(
  app: OpenAPIHono<E>,
  { ponderUrl, rateLimit }: { ponderUrl: string; rateLimit?: MiddlewareHandler<AppEnv> },
): void {
  const target = `${ponderUrl.replace(/\/+$/, "")}${GRAPHQL_PATH}`;
  const files = assets(guideExamples());
  for (const [name, { asset, dir }] of Object.entries(files)) {
    mountPageAssets(app, ASSET_BASE, { [name]: asset }, (file) => path.join(dir, file));
  }
  app.get(GRAPHQL_PLAYGROUND_PATH, (c) => {
    c.header("Cache-Control", "no-cache");
    c.header("Content-Security-Policy", CONTENT_SECURITY_POLICY);
    c.header("X-Content-Type-Options", "nosniff");
    return c.html(PAGE);
  });
  // Ponder answers GET /graphql with its playground; here the page has its own path
  app.get(GRAPHQL_PATH, (c) => c.redirect(GRAPHQL_PLAYGROUND_PATH, 302));

  const forward: MiddlewareHandler<AppEnv> = async (c) => {
    if (!/^application\/json\s*(;|$)/i.test(c.req.header("content-type") ?? "")) {
      throw new HttpError(415, "Content-Type must be application/json");
    }
    const body = await c.req.text();
    let request: unknown;
    try {
      request = JSON.parse(body);
    } catch {
      throw badRequest("Body is not valid JSON");
    }
    if (!isRecord(request) || typeof request.query !== "string") throw badRequest("query: expected a string");
    const aborted = new AbortController();
    const timer = setTimeout(() => aborted.abort(), UPSTREAM_TIMEOUT_MS);
    let upstream: Response;
    try {
      upstream = await fetch(target, {
        method: "POST",
        // JSON only: no multipart/incremental answers through here
        headers: { "content-type": "application/json", accept: "application/json" },
        body,
        signal: aborted.signal,
      });
    } catch {
      throw serviceUnavailable(UNAVAILABLE);
    } finally {
      clearTimeout(timer);
    }
    if (upstream.status >= 500) {
      await upstream.body?.cancel().catch(() => undefined);
      throw serviceUnavailable(UNAVAILABLE);
    }
    return new Response(upstream.body, {
      status: upstream.status,
      headers: {
        "content-type": upstream.headers.get("content-type") ?? "application/json",
        "cache-control": "no-store",
      },
    });
  };
  if (rateLimit) app.post(GRAPHQL_PATH, rateLimit, forward);
  else app.post(GRAPHQL_PATH, forward);
}
