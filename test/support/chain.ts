import { afterAll, beforeAll } from "vitest";
import type { Deployment } from "../../chain/deployments";
import { startAnvil, type LocalChain } from "../../devnet/anvil";
import { deployProtocol, type DeployOptions } from "../../devnet/deploy";
import { connectProtocol, type Protocol } from "../../devnet/protocol";
import { seedDemo, type SeedSummary } from "../../devnet/seed";

export type Devnet = {
  chain: LocalChain;
  deployment: Deployment;
  protocol: Protocol;
  seed?: SeedSummary;
};

/** Starts a fresh anvil and deploys the protocol once per test file (optionally seeded). */
export async function startDevnet(options: DeployOptions & { seed?: boolean } = {}): Promise<Devnet> {
  const chain = await startAnvil();
  const deployment = await deployProtocol(chain.rpcUrl, options);
  const seed = options.seed ? await seedDemo(chain.rpcUrl, deployment) : undefined;
  return { chain, deployment, protocol: connectProtocol(chain.rpcUrl, deployment), seed };
}

/** Vitest hook form: `const devnet = useDevnet({ seed: true }); ... devnet().protocol`. */
export function useDevnet(options: DeployOptions & { seed?: boolean } = {}): () => Devnet {
  let devnet: Devnet | undefined;
  beforeAll(async () => {
    devnet = await startDevnet(options);
  });
  afterAll(async () => {
    await devnet?.chain.stop();
  });
  return () => {
    if (!devnet) throw new Error("devnet not started");
    return devnet;
  };
}
