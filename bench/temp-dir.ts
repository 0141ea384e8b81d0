/** Temporary directories of a bench run. */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";

/**
 * A new directory under the OS temp dir, removed when this process exits (however it ends short of
 * a kill), so that runs leave nothing behind: the read-path bench used to leave its deployment
 * and wrk script directories on every run.
 */
export function benchTempDir(prefix: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}
