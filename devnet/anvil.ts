import { createRequire } from "node:module";
import path from "node:path";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { createAnvil, type Anvil } from "@viem/anvil";
import { createTestClient, http, publicActions } from "viem";
import { BASE_CHAIN_ID } from "../chain/chain";
import { freePort } from "../ops/net";

const require = createRequire(import.meta.url);

/** The native anvil shipped by @foundry-rs/anvil's platform package (its postinstall is not needed). */
export function anvilBinaryPath(): string {
  const arch = process.arch === "x64" ? "amd64" : process.arch;
  const pkg = `@foundry-rs/anvil-${process.platform}-${arch}`;
  const dir = path.dirname(require.resolve(`${pkg}/package.json`));
  return path.join(dir, "bin", process.platform === "win32" ? "anvil.exe" : "anvil");
}

export type LocalChain = {
  rpcUrl: string;
  port: number;
  anvil: Anvil;
  /** The anvil process (Linux; undefined where it cannot be found). */
  pid?: number;
  stop(): Promise<void>;
};

export type StartAnvilOptions = {
  port?: number;
  host?: string;
  /** Seconds since the epoch for the genesis block; fixed values make runs comparable. */
  timestamp?: number;
  /** Loads the chain from this file if it exists and writes it back on exit (a persistent devnet). */
  statePath?: string;
};

/** Starts anvil claiming Base's chain id (8453), with automine and no network access. */
export async function startAnvil(options: StartAnvilOptions = {}): Promise<LocalChain> {
  const port = options.port ?? (await freePort());
  const host = options.host ?? "127.0.0.1";
  const anvil = createAnvil({
    anvilBinary: anvilBinaryPath(),
    host,
    port,
    chainId: BASE_CHAIN_ID,
    timestamp: options.timestamp,
    state: options.statePath,
    startTimeout: 30_000,
    stopTimeout: 8_000,
    // its own process group: a terminal's Ctrl-C reaches only the launcher, which stops anvil in turn
    execArgs: ([binary, args, execaOptions]) => [binary, args, { ...execaOptions, detached: true }],
  });
  const resumed = options.statePath !== undefined && existsSync(options.statePath);
  await anvil.start();
  const pid = findAnvilPid(port);
  // Detached, anvil would outlive a parent that exits without stop() (an uncaught error,
  // process.exit): end its process group then. A persistent devnet gets SIGTERM, on which anvil
  // writes its state and exits (as on stop()); any other is killed outright.
  const exitSignal: NodeJS.Signals = options.statePath === undefined ? "SIGKILL" : "SIGTERM";
  const onExit = () => {
    if (pid === undefined) return;
    try {
      process.kill(-pid, exitSignal);
    } catch {
      // already gone
    }
  };
  process.once("exit", onExit);
  const rpcUrl = `http://${host}:${port}`;
  if (resumed) await resumeClock(rpcUrl);
  const stop = async () => {
    await anvil.stop();
    // only once it has stopped: a stop that fails leaves the hook to end it at exit
    process.removeListener("exit", onExit);
  };
  return { rpcUrl, port, anvil, pid, stop };
}

/** @viem/anvil does not expose the child: find it by its binary and port in /proc. */
function findAnvilPid(port: number): number | undefined {
  const binary = anvilBinaryPath();
  let entries: string[];
  try {
    entries = readdirSync("/proc").filter((name) => /^\d+$/.test(name));
  } catch {
    return undefined;
  }
  for (const entry of entries) {
    try {
      const args = readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0");
      if (args[0] === binary && args.includes("--port") && args[args.indexOf("--port") + 1] === String(port)) return Number(entry);
    } catch {
      // gone meanwhile
    }
  }
  return undefined;
}

/**
 * A reloaded state keeps its blocks but not the clock: anvil would mine the next block at
 * wall-clock time, possibly before the last one (the seed moves time forward). Continue from
 * the last block instead, so timestamps and epochs never go back.
 */
async function resumeClock(rpcUrl: string): Promise<void> {
  const client = createTestClient({ mode: "anvil", transport: http(rpcUrl) }).extend(publicActions);
  const latest = await client.getBlock();
  const now = BigInt(Math.floor(Date.now() / 1000));
  if (latest.timestamp < now) return;
  await client.setNextBlockTimestamp({ timestamp: latest.timestamp + 1n });
  await client.mine({ blocks: 1 });
}
