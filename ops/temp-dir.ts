/** Temporary directories that do not outlive the process. */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

export interface TempDir {
  path: string;
  /** Removes it now (and no longer at exit). */
  remove(): void;
}

/** A new directory under the OS temp dir, removed by `remove()` or, failing that, when the process exits short of a kill. */
export function tempDirRemovedAtExit(prefix: string): TempDir {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const removeNow = () => fs.rmSync(dir, { recursive: true, force: true });
  process.once("exit", removeNow);
  return {
    path: dir,
    remove() {
      process.removeListener("exit", removeNow);
      removeNow();
    },
  };
}
