/**
 * What one `npm start` owns, recorded in `.data/launcher.json`, so that the next start can clean
 * up after a launcher that was killed (SIGKILL, a lost terminal) instead of failing on a taken
 * port or a locked schema: the processes it started run in their own process groups and would
 * outlive it.
 */
import fs from "node:fs";
import path from "node:path";

export type ProcessRole = "anvil" | "indexer" | "postgres";

type Record_ = { pid: number; children: Partial<Record<ProcessRole, number>> };

/** What a role's command line contains, so a reused pid of another program is never signalled. */
const COMMAND_MARKERS: Record<ProcessRole, string> = { anvil: "anvil", indexer: "ponder", postgres: "postgres" };

/** Whether process `pid` exists (EPERM: it does, but belongs to another user). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

function commandLine(pid: number): string | undefined {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ");
  } catch {
    return undefined;
  }
}

async function waitForExit(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!isAlive(pid)) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return !isAlive(pid);
}

/** Asks `pid` to stop with `signal`, then SIGKILL after `graceMs`; no-op when it is not `role`'s program. */
export async function stopLeftover(role: ProcessRole, pid: number, signal: NodeJS.Signals, graceMs = 8_000): Promise<boolean> {
  const command = commandLine(pid);
  if (!isAlive(pid) || (command !== undefined && !command.includes(COMMAND_MARKERS[role]))) return false;
  process.kill(pid, signal);
  if (!(await waitForExit(pid, graceMs))) {
    process.kill(pid, "SIGKILL");
    await waitForExit(pid, 2_000);
  }
  return true;
}

function readRecord(file: string): Record_ | undefined {
  try {
    return JSON.parse(fs.readFileSync(file, "utf8")) as Record_;
  } catch {
    return undefined;
  }
}

const lockFile = (dataDir: string) => path.join(dataDir, "launcher.json");

/** The pid of a live `npm start` using this data directory, if any. */
export function launcherRunning(dataDir: string): number | undefined {
  const record = readRecord(lockFile(dataDir));
  return record && record.pid !== process.pid && isAlive(record.pid) && commandLine(record.pid)?.includes("start")
    ? record.pid
    : undefined;
}

export class LauncherLock {
  private readonly record: Record_ = { pid: process.pid, children: {} };
  private constructor(private readonly file: string) {}

  /**
   * Takes the lock for this data directory. A live launcher holding it is an error; a dead one's
   * leftovers are stopped in reverse start order (indexer with SIGINT so it releases its schema,
   * anvil with SIGTERM so it writes its state) and reported through `onCleanup`.
   */
  static async acquire(dataDir: string, onCleanup: (role: ProcessRole, pid: number) => void): Promise<LauncherLock> {
    const file = lockFile(dataDir);
    fs.mkdirSync(dataDir, { recursive: true });
    const running = launcherRunning(dataDir);
    if (running) {
      throw new Error(`npm start is already running from this folder (pid ${running}); stop it first (Ctrl-C or kill -INT ${running})`);
    }
    const previous = readRecord(file);
    const signals: [ProcessRole, NodeJS.Signals][] = [["indexer", "SIGINT"], ["anvil", "SIGTERM"], ["postgres", "SIGINT"]];
    for (const [role, signal] of signals) {
      const pid = previous?.children[role];
      if (pid && (await stopLeftover(role, pid, signal))) onCleanup(role, pid);
    }
    const lock = new LauncherLock(file);
    lock.save();
    return lock;
  }

  /** Records a child this launcher started. */
  track(role: ProcessRole, pid: number | undefined): void {
    if (pid === undefined) return;
    this.record.children[role] = pid;
    this.save();
  }

  release(): void {
    fs.rmSync(this.file, { force: true });
  }

  private save(): void {
    fs.writeFileSync(this.file, JSON.stringify(this.record) + "\n");
  }
}
