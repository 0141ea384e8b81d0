import { mkdirSync, readFileSync, writeFileSync, existsSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { processEnv } from "../api/env";

const address = z.string().regex(/^0x[0-9a-fA-F]{40}$/) as unknown as z.ZodType<`0x${string}`>;
const contract = z.object({ address, startBlock: z.number().int().nonnegative() });

export const deploymentSchema = z.object({
  chainId: z.number().int(),
  rpcUrl: z.string().optional(),
  deployedAt: z.string(),
  contracts: z.object({
    CoreToken: contract,
    DemoToken: contract,
    VeCore: contract,
    SubnetManager: contract,
    PodManager: contract,
  }),
  parameters: z.object({
    epochLengthSeconds: z.number().int().positive(),
    minStakeDuration: z.number().int().positive(),
    maxStakeDuration: z.number().int().positive(),
    subnetCreationFee: z.string(),
    podValidityPeriod: z.number().int().positive(),
    performancePool: address,
    governanceAccounts: z.array(address),
  }),
});

export type Deployment = z.infer<typeof deploymentSchema>;
export type ContractName = keyof Deployment["contracts"];

export const DEFAULT_DEPLOYMENTS_FILE = ".data/devnet/deployments.json";

export function deploymentsFile(env: NodeJS.ProcessEnv = processEnv()): string {
  return path.resolve(env.DEPLOYMENTS_FILE ?? DEFAULT_DEPLOYMENTS_FILE);
}

export function writeDeployment(deployment: Deployment, file = deploymentsFile()): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(deployment, null, 2) + "\n");
}

export function readDeployment(file = deploymentsFile()): Deployment | undefined {
  if (!existsSync(file)) return undefined;
  return deploymentSchema.parse(JSON.parse(readFileSync(file, "utf8")));
}
