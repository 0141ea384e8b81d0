import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import MiniSearch from "minisearch";
import type { Logger } from "pino";
import { processTerm } from "../search-terms";

/** One searchable passage: a section of a document, or one live record. */
export interface Passage {
  id: string;
  /** Where it comes from: "docs/<file>.md", "interface-spec.md" or "live:<kind>". */
  source: string;
  /** The document's title or the record's name. */
  title: string;
  /** The heading (path) of the section, or the record's key. */
  section: string;
  text: string;
}

export interface ScoredPassage extends Passage {
  score: number;
}

const MAX_PASSAGE_CHARS = 1_600;

function headingText(line: string): string {
  return line.replace(/^#+\s*/, "").replace(/[*_`]/g, "").trim();
}

/**
 * Splits markdown into one passage per heading section (long sections into paragraph chunks).
 * `section` is the heading path below the title ("4. Endpoints › 4.6 Chat server"). Pure.
 */
export function splitMarkdown(source: string, markdown: string): Passage[] {
  const lines = markdown.split(/\r?\n/);
  const h1 = lines.find((line) => /^#\s/.test(line));
  const title = h1 ? headingText(h1) : path.basename(source, path.extname(source));
  const passages: Passage[] = [];
  const stack: { level: number; text: string }[] = [];
  let body: string[] = [];
  let inCode = false;

  const flush = () => {
    const text = body.join("\n").trim();
    body = [];
    if (!text) return;
    const section = stack.filter((h) => h.level > 1).map((h) => h.text).join(" › ") || title;
    const chunks: string[] = [];
    let current = "";
    for (const paragraph of text.split(/\n\s*\n/)) {
      if (current && current.length + paragraph.length > MAX_PASSAGE_CHARS) {
        chunks.push(current);
        current = "";
      }
      current = current ? `${current}\n\n${paragraph}` : paragraph;
    }
    if (current) chunks.push(current);
    for (const chunk of chunks) {
      passages.push({ id: `${source}#${passages.length}`, source, title, section, text: chunk });
    }
  };

  for (const line of lines) {
    if (/^\s*```/.test(line)) inCode = !inCode;
    const heading = !inCode && /^(#{1,6})\s+\S/.exec(line);
    if (heading) {
      flush();
      const level = heading[1]!.length;
      while (stack.length > 0 && stack[stack.length - 1]!.level >= level) stack.pop();
      stack.push({ level, text: headingText(line) });
      continue;
    }
    body.push(line);
  }
  flush();
  return passages;
}

function newIndex(): MiniSearch<Passage> {
  return new MiniSearch<Passage>({
    fields: ["title", "section", "text"],
    storeFields: ["source", "title", "section", "text"],
    processTerm,
    searchOptions: { boost: { section: 2, title: 1.5 }, prefix: true, fuzzy: 0.15, combineWith: "OR" },
  });
}

/** Full-text search over passages (BM25 with prefix and fuzzy matching). */
export function searchPassages(index: MiniSearch<Passage>, query: string, limit: number): ScoredPassage[] {
  return index
    .search(query.slice(0, 2_000))
    .slice(0, limit)
    .map((hit) => ({
      id: String(hit.id),
      source: hit.source as string,
      title: hit.title as string,
      section: hit.section as string,
      text: hit.text as string,
      score: hit.score,
    }));
}

/** A throwaway index of a request's live records. */
export function searchLiveRecords(records: Passage[], query: string, limit: number): ScoredPassage[] {
  if (records.length === 0) return [];
  const index = newIndex();
  index.addAll(records);
  return searchPassages(index, query, limit);
}

const RELOAD_CHECK_MS = 30_000;

export interface KnowledgeBaseOptions {
  /** Every `*.md` in it is indexed, as `docs/<file>`. */
  docsDir: string;
  /** The interface specification; indexed when given and readable. */
  specFile?: string;
  logger?: Logger;
}

/**
 * The protocol documentation as a MiniSearch index: the spec and the project's docs. Built on
 * first use and rebuilt when a file is added, removed or modified (checked at most every 30 s).
 * Missing files are skipped: without the spec it indexes docs only, without both it is empty.
 */
export class KnowledgeBase {
  private index: MiniSearch<Passage> | undefined;
  private signature = "";
  private checkedAt = 0;

  constructor(private readonly options: KnowledgeBaseOptions) {}

  private files(): { file: string; source: string; mtimeMs: number }[] {
    const found: { file: string; source: string; mtimeMs: number }[] = [];
    const add = (file: string, source: string) => {
      try {
        found.push({ file, source, mtimeMs: statSync(file).mtimeMs });
      } catch {
        // missing: skipped
      }
    };
    if (this.options.specFile) add(this.options.specFile, path.basename(this.options.specFile));
    let names: string[] = [];
    try {
      names = readdirSync(this.options.docsDir).filter((name) => name.endsWith(".md")).sort();
    } catch {
      names = [];
    }
    for (const name of names) add(path.join(this.options.docsDir, name), `docs/${name}`);
    return found;
  }

  /** The current index, rebuilt when the files changed. */
  current(): MiniSearch<Passage> {
    const now = Date.now();
    if (this.index && now - this.checkedAt < RELOAD_CHECK_MS) return this.index;
    this.checkedAt = now;
    const files = this.files();
    const signature = files.map((f) => `${f.source}:${f.mtimeMs}`).join("|");
    if (this.index && signature === this.signature) return this.index;

    const index = newIndex();
    for (const { file, source } of files) {
      try {
        index.addAll(splitMarkdown(source, readFileSync(file, "utf8")));
      } catch (error) {
        this.options.logger?.warn({ err: error, source }, "could not index a documentation file");
      }
    }
    this.index = index;
    this.signature = signature;
    return index;
  }

  search(query: string, limit = 4): ScoredPassage[] {
    return searchPassages(this.current(), query, limit);
  }

  /** Number of indexed passages (for tests and logs). */
  size(): number {
    return this.current().documentCount;
  }
}
