/**
 * What a surface tells about itself, in one place: its OpenAPI document (`/openapi.json`, whose
 * `info.description` explains every credential and how to get one), the interactive reference
 * (`/docs`), the Markdown guides of docs/ as plain text (`/docs/guides/<name>.md`), and `/`, an
 * index of these links plus health, readiness and metrics.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import type { OpenAPIHono } from "@hono/zod-openapi";
import { type DocsSignIn, DOCS_PATH, mountDocs } from "./docs";
import { notFound } from "./errors";
import { mountOpenApi } from "./openapi";
import type { AppEnv } from "./types";

export const GUIDES_PATH = `${DOCS_PATH}/guides`;
/** The Markdown guides, read from the working directory's docs/ (where the assistant reads them too). */
const GUIDES_DIR = "docs";
const GUIDE_NAME = /^[a-z0-9-]+\.md$/;

/** The guides present at start, by file name: `architecture.md` → its text. */
function loadGuides(): Map<string, string> {
  const guides = new Map<string, string>();
  let names: string[] = [];
  try {
    names = readdirSync(GUIDES_DIR).filter((name) => GUIDE_NAME.test(name));
  } catch {
    return guides; // a deployment without docs/ serves no guides, and links none
  }
  for (const name of names.sort()) guides.set(name, readFileSync(path.join(GUIDES_DIR, name), "utf8"));
  return guides;
}

export interface SurfaceReference {
  title: string;
  version?: string;
  /** Markdown: what the surface is and its credentials; the links section is added here. */
  description: string;
  /** The guides this surface links first, by file name (others present follow). */
  guides: string[];
  signIn?: DocsSignIn;
  /** More pages of the surface, by key: listed in `/` and in the document's links (e.g. the GraphQL playground). */
  links?: Record<string, { path: string; title: string }>;
}

const LINK_TITLES: Record<string, string> = {
  "platform-api.md": "Platform API",
  "chat-server.md": "Chat server",
  "evaluation-api.md": "Evaluation API",
  "events.md": "Event stream",
  "webhooks.md": "Webhooks",
  "graphql.md": "GraphQL",
  "reorgs.md": "Reorgs",
  "architecture.md": "Architecture",
};

export function mountReference<E extends AppEnv>(app: OpenAPIHono<E>, reference: SurfaceReference): void {
  const guides = loadGuides();
  const linked = [...reference.guides.filter((name) => guides.has(name)), ...[...guides.keys()].filter((n) => !reference.guides.includes(n))];
  const guideLinks = linked.map((name) => `[${LINK_TITLES[name] ?? name}](${GUIDES_PATH}/${name})`).join(" · ");
  const extraLinks = Object.values(reference.links ?? {})
    .map(({ path: linkPath, title }) => `[${title}](${linkPath})`)
    .join(" · ");
  const description = `${reference.description.trim()}

## Links
${guideLinks ? `- Guides: ${guideLinks}\n` : ""}${extraLinks ? `- ${extraLinks}\n` : ""}- [OpenAPI document](/openapi.json) · [health](/health) · [readiness](/ready) · [metrics](/metrics)
`;
  mountOpenApi(app, { title: reference.title, version: reference.version ?? "1.0.0", description });
  mountDocs(app, { title: reference.title, signIn: reference.signIn });

  app.get(`${GUIDES_PATH}/:name`, (c) => {
    const text = guides.get(c.req.param("name"));
    if (text === undefined) throw notFound("Guide not found");
    c.header("Cache-Control", "no-cache");
    c.header("X-Content-Type-Options", "nosniff");
    return c.body(text, 200, { "Content-Type": "text/markdown; charset=utf-8" });
  });

  app.get("/", (c) =>
    c.json({
      service: reference.title,
      docs: DOCS_PATH,
      openapi: "/openapi.json",
      health: "/health",
      ready: "/ready",
      metrics: "/metrics",
      ...Object.fromEntries(Object.entries(reference.links ?? {}).map(([key, { path: linkPath }]) => [key, linkPath])),
      guides: Object.fromEntries(linked.map((name) => [name.replace(/\.md$/, ""), `${GUIDES_PATH}/${name}`])),
    }),
  );
}
