/**
 * Load with `wrk` (Debian package `wrk`; a C load generator, so the Node event loop under test is
 * not shared with the client). Spawned asynchronously: the API runs in this same process.
 */
import { spawn, spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { benchTempDir } from "../temp-dir";

export interface LoadResult {
  rps: number;
  p50Ms: number;
  p99Ms: number;
  requests: number;
  /** Socket errors (connect, read, write, timeout) plus non-2xx/3xx answers. */
  errors: number;
  non2xx: number;
  /** CPU time of the process under test per answered request, in µs, when the caller measured it. */
  cpuUs?: number;
  /** The user-space part of cpuUs: the process's own code, without the kernel's socket work. */
  userUs?: number;
}

function toMs(value: string): number {
  const m = /^([\d.]+)(us|ms|s|m)$/.exec(value.trim());
  if (!m) return NaN;
  const n = Number(m[1]);
  return m[2] === "us" ? n / 1000 : m[2] === "ms" ? n : m[2] === "s" ? n * 1000 : n * 60_000;
}

export function parseWrk(out: string): LoadResult {
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? NaN);
  const p50 = toMs(/\n\s+50%\s+(\S+)/.exec(out)?.[1] ?? "");
  const p99 = toMs(/\n\s+99%\s+(\S+)/.exec(out)?.[1] ?? "");
  const requests = Number(/(\d+) requests in/.exec(out)?.[1] ?? 0);
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
  const socketErrors = socket ? socket.slice(1).reduce((a, b) => a + Number(b), 0) : 0;
  const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0);
  return { rps, p50Ms: p50, p99Ms: p99, requests, errors: socketErrors + non2xx, non2xx };
}

/** Stops the bench before it builds anything when `wrk` is not installed (else a spawn error mid-run). */
export function assertWrkInstalled(): void {
  const probe = spawnSync("wrk", ["--version"], { stdio: "ignore" });
  if ((probe.error as NodeJS.ErrnoException | undefined)?.code === "ENOENT") {
    console.error("The read-path bench needs `wrk` on PATH (Debian: apt-get install wrk).");
    process.exit(2);
  }
}

const scriptDir = benchTempDir("bench-wrk-");
let scripts = 0;

/** A Lua script that sends `paths` in turn (each connection starts at a different one) with `headers`. */
function mixScript(paths: string[], headers: Record<string, string>): string {
  const file = path.join(scriptDir, `mix-${scripts++}.lua`);
  const list = paths.map((p) => JSON.stringify(p)).join(",\n  ");
  const hdrs = Object.entries(headers)
    .map(([k, v]) => `wrk.headers[${JSON.stringify(k)}] = ${JSON.stringify(v)}`)
    .join("\n");
  writeFileSync(
    file,
    `paths = {\n  ${list}\n}\n${hdrs}\ncounter = 0\nfunction setup(thread) thread:set("offset", counter) counter = counter + 7 end\n` +
      `i = nil\nfunction request()\n  if i == nil then i = (offset or 0) end\n  i = i + 1\n  return wrk.format(nil, paths[(i % #paths) + 1])\nend\n`,
  );
  return file;
}

export interface LoadOptions {
  baseUrl: string;
  paths: string[];
  connections: number;
  seconds: number;
  threads?: number;
  headers?: Record<string, string>;
  timeoutSeconds?: number;
}

export function runWrk(options: LoadOptions): Promise<LoadResult> {
  const threads = Math.min(options.threads ?? 2, options.connections);
  const args = [
    `-t${threads}`,
    `-c${options.connections}`,
    // wrk takes whole seconds (a turn of BENCH_READ_SECONDS / BENCH_READ_ROUNDS may not be)
    `-d${Math.max(1, Math.round(options.seconds))}s`,
    `--timeout`,
    `${options.timeoutSeconds ?? 10}s`,
    "--latency",
    "-s",
    mixScript(options.paths, options.headers ?? {}),
    options.baseUrl,
  ];
  return spawnWrk(args);
}

/** wrk with these arguments, its report parsed (rejects when wrk fails). */
export function spawnWrk(args: string[]): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const child = spawn("wrk", args, { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (chunk) => (out += chunk));
    child.stderr.on("data", (chunk) => (out += chunk));
    child.once("error", reject);
    child.once("exit", (code) => {
      if (code !== 0) return reject(new Error(`wrk exited with ${code}: ${out}`));
      resolve(parseWrk(out));
    });
  });
}
