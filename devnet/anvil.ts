import { createRequire } from "node:module";
import path from "node:path";
import { createAnvil, type Anvil } from "@viem/anvil";
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
  stop(): Promise<void>;
};

export type StartAnvilOptions = {
  port?: number;
  host?: string;
  /** Seconds since the epoch for the genesis block; fixed values make runs comparable. */
  timestamp?: number;
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
    startTimeout: 30_000,
  });
  await anvil.start();
  return { rpcUrl: `http://${host}:${port}`, port, anvil, stop: () => anvil.stop() };
}
