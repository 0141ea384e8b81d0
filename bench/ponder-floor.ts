/**
 * The floor of any indexer built on Ponder 0.16.10 here: this project's committed code (config,
 * schema, Ponder patch, API) with every handler's body emptied. Same registrations, so the same
 * filters, sync, RPC requests and `ponder_sync` rows; no store operation, no eth_call. Whatever
 * our handlers do, our backfill cannot be faster than this one's on the same chain.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { PROJECT_ROOT } from "../ops/indexer";

const REGISTRATION = /ponder\.on\(\s*"([A-Za-z0-9_]+:[A-Za-z0-9_]+)"/g;

/** A handler file's registrations, each with an empty body; undefined when it registers none. */
export function emptiedHandlers(source: string): string | undefined {
  const names = [...source.matchAll(REGISTRATION)].map((match) => match[1]!);
  if (names.length === 0) return undefined;
  return [
    'import { ponder } from "ponder:registry";',
    ...names.map((name) => `ponder.on(${JSON.stringify(name)}, async () => {});`),
    "",
  ].join("\n");
}

/** A temp checkout of HEAD with emptied handlers and this node_modules; the caller removes it. */
export function emptyHandlersRoot(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), "bench-floor-"));
  const archive = spawnSync("sh", ["-c", `git archive HEAD | tar -x -C "${dir}"`], { cwd: PROJECT_ROOT });
  if (archive.status !== 0) throw new Error(`git archive HEAD failed: ${archive.stderr}`);
  symlinkSync(realpathSync(path.join(PROJECT_ROOT, "node_modules")), path.join(dir, "node_modules"));
  const src = path.join(dir, "src");
  for (const file of readdirSync(src)) {
    if (!file.endsWith(".ts")) continue;
    const emptied = emptiedHandlers(readFileSync(path.join(src, file), "utf8"));
    if (emptied) writeFileSync(path.join(src, file), emptied);
  }
  return dir;
}
