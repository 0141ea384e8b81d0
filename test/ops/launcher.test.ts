/**
 * `npm start` under faults, run as a user would (the launcher process, its own .data/ in a
 * scratch folder): the indexer killed while live is restarted; a killed launcher's leftovers
 * (anvil, the indexer) are stopped by the next start, which resumes the chain; Ctrl-C stops
 * everything promptly.
 */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import readline from "node:readline";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freeFixedPort } from "../../ops/net";
import { PROJECT_ROOT } from "../../ops/indexer";
import { useFreshDatabase, type FreshDatabase } from "../support/database";

const tsxLoader = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;
let workDir: string;
let database: FreshDatabase;
let ports: Record<"ANVIL_PORT" | "PONDER_PORT" | "PLATFORM_PORT" | "CHAT_PORT" | "EVAL_PORT", number>;
const launched: ChildProcess[] = [];

type Launcher = {
  child: ChildProcess;
  lines: string[];
  /** Waits for a line matching `pattern` among the lines from index `since` on (default: all). */
  waitFor(pattern: RegExp, timeoutMs?: number, since?: number): Promise<number>;
};

function launch(): Launcher {
  const child = spawn(process.execPath, ["--import", tsxLoader, path.join(PROJECT_ROOT, "scripts/start.ts")], {
    cwd: workDir,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, ...Object.fromEntries(Object.entries(ports).map(([k, v]) => [k, String(v)])), DATABASE_URL: database.url, LOG_FORMAT: "json", LOG_LEVEL: "info" },
  });
  launched.push(child);
  const lines: string[] = [];
  for (const stream of [child.stdout!, child.stderr!]) readline.createInterface({ input: stream }).on("line", (line) => lines.push(line));
  return {
    child,
    lines,
    async waitFor(pattern, timeoutMs = 180_000, since = 0) {
      const started = Date.now();
      while (Date.now() - started < timeoutMs) {
        if (lines.slice(since).some((line) => pattern.test(line))) return Date.now() - started;
        if (child.exitCode !== null) throw new Error(`launcher exited (${child.exitCode}):\n${lines.slice(-20).join("\n")}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      throw new Error(`no ${pattern} within ${timeoutMs} ms:\n${lines.slice(-20).join("\n")}`);
    },
  };
}

const children = () => (JSON.parse(fs.readFileSync(path.join(workDir, ".data/launcher.json"), "utf8")) as { children: Record<string, number> }).children;
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
const listening = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = net.connect(port, "127.0.0.1", () => {
      socket.destroy();
      resolve(true);
    });
    socket.on("error", () => resolve(false));
  });
async function ready(port: number): Promise<number> {
  try {
    return (await fetch(`http://127.0.0.1:${port}/ready`, { signal: AbortSignal.timeout(2_000) })).status;
  } catch {
    return 0;
  }
}

beforeAll(async () => {
  workDir = fs.mkdtempSync(path.join(os.tmpdir(), "launcher-test-"));
  database = await useFreshDatabase();
  const [a, b, c, d, e] = await Promise.all([freeFixedPort(), freeFixedPort(), freeFixedPort(), freeFixedPort(), freeFixedPort()]);
  ports = { ANVIL_PORT: a, PONDER_PORT: b, PLATFORM_PORT: c, CHAT_PORT: d, EVAL_PORT: e };
});

afterAll(async () => {
  const kill = (pid: number) => {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // already gone
    }
  };
  for (const child of launched) if (child.exitCode === null && child.signalCode === null) kill(-child.pid!);
  for (const pid of Object.values(fs.existsSync(path.join(workDir, ".data/launcher.json")) ? children() : {})) kill(pid);
  await database?.drop().catch(() => undefined);
  fs.rmSync(workDir, { recursive: true, force: true });
});

describe("npm start under faults", { timeout: 300_000 }, () => {
  let first: Launcher;

  it("starts on a fresh folder, serves the API before the backfill is done, and prints its URLs", async () => {
    first = launch();
    await first.waitFor(/Data market is running/);
    // the API answers at once: liveness whatever the indexer does
    expect((await fetch(`http://127.0.0.1:${ports.CHAT_PORT}/health`)).status).toBe(200);
    await first.waitFor(/indexer: backfill done in \d+ s/);
    expect(await ready(ports.PONDER_PORT)).toBe(200);
    // the API's own /ready also waits for the live blocks after Ponder's backfill (its lag bounds)
    const doneAt = Date.now();
    while ((await ready(ports.CHAT_PORT)) !== 200) {
      expect(Date.now() - doneAt).toBeLessThan(60_000);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    // JSON logs: the indexer's lines are JSON lines on stdout too, and no log file grows in .data
    const indexerLines = first.lines.filter((line) => line.includes('"service":"indexer"'));
    expect(indexerLines.length).toBeGreaterThan(0);
    for (const line of indexerLines) expect(() => JSON.parse(line)).not.toThrow();
    expect(fs.existsSync(path.join(workDir, ".data/indexer.log"))).toBe(false);
  });

  it("restarts an indexer killed with SIGKILL, and it serves again", async () => {
    const since = first.lines.length;
    const killedAt = Date.now();
    process.kill(children().indexer!, "SIGKILL");
    await first.waitFor(/indexer crashed: /, 60_000, since);
    await first.waitFor(/indexer restarted/, 60_000, since);
    while ((await ready(ports.PONDER_PORT)) !== 200) {
      expect(Date.now() - killedAt).toBeLessThan(120_000);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    console.log(`indexer SIGKILL → /ready 200 again in ${Date.now() - killedAt} ms`);
  });

  it("reports a reorg deeper than the finality depth and, on the local devnet, reindexes", async () => {
    const rpc = (method: string, params: unknown[]) =>
      fetch(`http://127.0.0.1:${ports.ANVIL_PORT}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
      }).then((response) => response.json() as Promise<{ result?: unknown; error?: unknown }>);
    // Ponder has finalized blocks 30 deep: replace the last 40 and mine on
    const since = first.lines.length; // the previous test's restart is not this one's
    const reorged = await rpc("anvil_reorg", [40, []]);
    expect(reorged.error).toBeUndefined();
    await rpc("anvil_mine", ["0x5"]);
    const started = Date.now();
    await first.waitFor(/reorganised deeper than the finality depth/, 120_000, since);
    await first.waitFor(/indexer restarted/, 120_000, since);
    while ((await ready(ports.PONDER_PORT)) !== 200) {
      expect(Date.now() - started).toBeLessThan(180_000);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    console.log(`deep reorg → reindexed, /ready 200 again in ${Date.now() - started} ms`);
  });

  it("a killed launcher's leftovers are stopped by the next start, which resumes the chain", async () => {
    const left = children();
    process.kill(first.child.pid!, "SIGKILL");
    await new Promise((resolve) => first.child.once("exit", resolve));
    expect(alive(left.anvil!)).toBe(true); // what a killed launcher leaves behind
    const second = launch();
    await second.waitFor(/Data market is running/);
    expect(second.lines.join("\n")).toMatch(/stopped a (anvil|indexer) \(pid \d+\) left running/);
    expect(second.lines.join("\n")).toMatch(/resumed from \.data\/devnet/);
    expect(alive(left.anvil!)).toBe(false);

    const stoppedAt = Date.now();
    process.kill(-second.child.pid!, "SIGINT"); // Ctrl-C: the terminal signals the foreground group
    await new Promise((resolve) => second.child.once("exit", resolve));
    expect(Date.now() - stoppedAt).toBeLessThan(10_000);
    expect(second.child.exitCode).toBe(0);
    for (const port of Object.values(ports)) expect(await listening(port)).toBe(false);
    expect(second.lines.filter((line) => /"level":50/.test(line))).toEqual([]);
  });
});
