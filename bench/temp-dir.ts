/** Temporary directories of a bench run. */
import { tempDirRemovedAtExit } from "../ops/temp-dir";

/** A new directory removed when the bench exits: runs leave nothing behind. */
export const benchTempDir = (prefix: string): string => tempDirRemovedAtExit(prefix).path;
