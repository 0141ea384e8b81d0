/**
 * anvil for the generated bench chains: like devnet's startAnvil (Base's chain id, loopback),
 * plus `--max-persisted-states <large>`, which keeps every block's state reachable (on disk).
 * By default anvil keeps only recent states reachable, so on a chain of thousands of blocks the
 * indexer's reads at old blocks (the protocol parameters at the deployment blocks) fail with
 * BlockOutOfRangeError. The states go to a temp folder (about 1.3 MB a block on our chains),
 * removed by `stop()`.
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { createAnvil } from "@viem/anvil";
import { anvilBinaryPath, type LocalChain } from "../devnet/anvil";
import { BASE_CHAIN_ID } from "../chain/chain";
import { freePort } from "../ops/net";

export type BenchAnvilOptions = {
  /** Unlocked dev accounts (anvil's default: 10). */
  accounts?: number;
  /** Block gas limit (anvil's default: 30M, i.e. 50 generated transactions of 600k declared gas). */
  gasLimit?: bigint;
  /**
   * Keep every block's state reachable, on disk (default true). Off: only the last 256 states, in
   * memory (`--prune-history 256`); for chains too long for their states (1M events ≈ 130 GB),
   * whose old-state reads come from Ponder's RPC cache instead (devchain.ts --calls-db).
   */
  persistStates?: boolean;
};

export async function startBenchAnvil(options: BenchAnvilOptions = {}): Promise<LocalChain> {
  const port = await freePort();
  const host = "127.0.0.1";
  const persist = options.persistStates ?? true;
  const cachePath = persist ? mkdtempSync(path.join(os.tmpdir(), "bench-anvil-")) : undefined;
  const anvil = createAnvil({
    anvilBinary: anvilBinaryPath(),
    host,
    port,
    chainId: BASE_CHAIN_ID,
    startTimeout: 30_000,
    accounts: options.accounts,
    gasLimit: options.gasLimit,
    // not in @viem/anvil's option type; passed through as --max-persisted-states, --cache-path
    // without: anvil's default still writes older states to its own temp folder (47 GB by 26k blocks)
    ...(cachePath ? ({ maxPersistedStates: 10_000_000, cachePath } as object) : ({ pruneHistory: 256 } as object)),
  });
  await anvil.start();
  const stop = async () => {
    await anvil.stop();
    if (cachePath) rmSync(cachePath, { recursive: true, force: true });
  };
  return { rpcUrl: `http://${host}:${port}`, port, anvil, stop };
}
