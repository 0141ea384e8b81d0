/**
 * `npm run build`: the services and operator commands as plain JavaScript in dist/, run with
 * `node dist/...` and nothing but the production dependencies.
 *
 *   1. tsc -p tsconfig.build.json: the entry points and everything they import, same layout
 *      under dist/ (dist/api/main.js, dist/scripts/*.js, ...). It only emits (noCheck): type
 *      checking is `npm run typecheck`'s job, run by CI on the same sources.
 *   2. Relative import specifiers get their file: the sources import "./config" (resolved by
 *      tsx, vitest and Ponder's vite), which Node's ESM loader refuses without ".js".
 *   3. Files read at run time beside the code are copied (the off-chain migrations).
 *   4. The result must not import devnet/ (local-chain helpers) or a dev dependency.
 *
 * The indexer is not compiled: `ponder start`/`ponder serve` load ponder.config.ts, ponder.schema.ts
 * and src/ themselves (through vite, a dependency of ponder), so the runtime tree keeps those sources.
 */
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { parseCommandLine } from "../ops/cli";
import { PROJECT_ROOT } from "../ops/indexer";

parseCommandLine({
  usage: `Usage: npm run build
  Compiles the services and operator commands to dist/ (tsc -p tsconfig.build.json), so that
  they run with node and the production dependencies only (docs/deploy.md).`,
  options: {},
});

const DIST = path.join(PROJECT_ROOT, "dist");
/** Non-TypeScript files the compiled code reads relative to itself. */
const ASSETS = ["api/db/migrations"];
/** Never reachable from production code. */
const FORBIDDEN_DIRS = ["devnet", "test", "bench"];

const packageJson = JSON.parse(readFileSync(path.join(PROJECT_ROOT, "package.json"), "utf8")) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};
const devOnly = new Set(
  Object.keys(packageJson.devDependencies).filter((name) => !(name in packageJson.dependencies)),
);

function jsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const full = path.join(dir, entry);
    if (statSync(full).isDirectory()) return jsFiles(full);
    return full.endsWith(".js") ? [full] : [];
  });
}

const SPECIFIER = /(\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)(["'])([^"']+)\2/g;

function packageName(specifier: string): string {
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : (parts[0] ?? specifier);
}

/** Gives each relative specifier its file; returns the problems found. */
function fixSpecifiers(file: string): string[] {
  const problems: string[] = [];
  const source = readFileSync(file, "utf8");
  const fixed = source.replace(SPECIFIER, (match, lead: string, quote: string, specifier: string) => {
    if (!specifier.startsWith("./") && !specifier.startsWith("../")) {
      if (!specifier.startsWith("node:") && devOnly.has(packageName(specifier))) {
        problems.push(`${path.relative(DIST, file)} imports the dev dependency ${specifier}`);
      }
      return match;
    }
    const target = path.resolve(path.dirname(file), specifier);
    const relToDist = path.relative(DIST, target);
    if (FORBIDDEN_DIRS.some((dir) => relToDist === dir || relToDist.startsWith(`${dir}/`))) {
      problems.push(`${path.relative(DIST, file)} imports ${specifier} (not production code)`);
    }
    let resolved: string | undefined;
    if (/\.(m?js|json)$/.test(specifier) && existsSync(target)) resolved = specifier;
    else if (existsSync(`${target}.js`)) resolved = `${specifier}.js`;
    else if (existsSync(path.join(target, "index.js"))) resolved = `${specifier}/index.js`;
    if (resolved === undefined) {
      problems.push(`${path.relative(DIST, file)}: cannot resolve ${specifier}`);
      return match;
    }
    return `${lead}${quote}${resolved}${quote}`;
  });
  if (fixed !== source) writeFileSync(file, fixed);
  return problems;
}

const started = Date.now();
rmSync(DIST, { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
execFileSync(process.execPath, [tsc, "-p", path.join(PROJECT_ROOT, "tsconfig.build.json")], {
  cwd: PROJECT_ROOT,
  stdio: "inherit",
});
const files = jsFiles(DIST);
const problems = files.flatMap(fixSpecifiers);
for (const asset of ASSETS) cpSync(path.join(PROJECT_ROOT, asset), path.join(DIST, asset), { recursive: true });
if (problems.length > 0) {
  console.error(`build: ${problems.length} problem(s):\n  ${problems.join("\n  ")}`);
  process.exit(1);
}
console.log(`build: ${files.length} files in dist/ in ${Date.now() - started} ms`);
