import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The project's root: the nearest folder above this file with a package.json. The same answer
 * from the sources (ops/) and from the build (dist/ops/), which has no package.json of its own.
 */
export function findProjectRoot(from = path.dirname(fileURLToPath(import.meta.url))): string {
  let dir = from;
  while (!existsSync(path.join(dir, "package.json"))) {
    const up = path.dirname(dir);
    if (up === dir) return path.resolve(from, "..");
    dir = up;
  }
  return dir;
}

export const PROJECT_ROOT = findProjectRoot();
