/**
 * `npm run deploy:protocol -- --rpc URL`: deploys the protocol's contracts to the chain behind
 * URL with DEPLOYER_PRIVATE_KEY, writes the deployments file and prints, one a line, the
 * `export NAME=value` lines the services need (progress goes to stderr, so
 * `eval "$(npm run -s deploy:protocol -- --rpc URL)"` works).
 */
import path from "node:path";
import { privateKeyToAccount } from "viem/accounts";
import { parseOperatorEnv } from "../api/env";
import { DAY, deployProtocolContracts } from "../chain/deploy";
import { deploymentsFile, writeDeployment, type Deployment } from "../chain/deployments";
import { ADDRESS_ENV } from "../chain/protocol-config";
import { exitWithUsage, parseCommandLine } from "../ops/cli";
import { RPC_URL_ENV } from "../ops/ponder-env";

const USAGE = `Usage: npm run deploy:protocol -- --rpc URL [--out FILE] [--epoch-length SECONDS]
  Deploys CoreToken, DemoToken, VeCore, SubnetManager and PodManager to the chain at URL, sent
  by DEPLOYER_PRIVATE_KEY (the protocol's admin and moderator), writes the deployments file
  (--out, default DEPLOYMENTS_FILE or .data/devnet/deployments.json) and prints the
  "export NAME=value" lines the indexer and the API need, one a line, on stdout.
  Environment: DEPLOYER_PRIVATE_KEY (required), PERFORMANCE_POOL_ADDRESS (default: the
  deployer), GOVERNANCE_ACCOUNTS (comma-separated, default none).
  --epoch-length  seconds per epoch (default ${2 * DAY}, the live protocol's 48 h)`;

const { values } = parseCommandLine({
  usage: USAGE,
  options: { rpc: { type: "string" }, out: { type: "string" }, "epoch-length": { type: "string" } },
});

const rpcUrl = values.rpc?.trim();
if (!rpcUrl) exitWithUsage(USAGE, "--rpc URL is required");
try {
  new URL(rpcUrl);
} catch {
  exitWithUsage(USAGE, `--rpc: not a URL: ${rpcUrl}`);
}
let epochLengthSeconds: number | undefined;
if (values["epoch-length"] !== undefined) {
  epochLengthSeconds = Number(values["epoch-length"]);
  if (!Number.isInteger(epochLengthSeconds) || epochLengthSeconds < 60) exitWithUsage(USAGE, "--epoch-length: an integer of seconds >= 60");
}

let env: ReturnType<typeof parseOperatorEnv>;
try {
  env = parseOperatorEnv();
} catch (error) {
  exitWithUsage(USAGE, (error as Error).message);
}
if (!env.DEPLOYER_PRIVATE_KEY) exitWithUsage(USAGE, "DEPLOYER_PRIVATE_KEY is not set");
const deployer = privateKeyToAccount(env.DEPLOYER_PRIVATE_KEY);
const file = path.resolve(values.out ?? deploymentsFile());

/** A value as one shell word: bare when it is safe, else single-quoted. */
function shellWord(value: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(value) ? value : `'${value.replaceAll("'", `'\\''`)}'`;
}

function exportLines(deployment: Deployment): string[] {
  // one START_BLOCK for all: the block of the last contract deployed, where every one of them
  // exists (the indexer's setup handlers read each contract at the start block)
  const startBlock = Math.max(...Object.values(deployment.contracts).map((contract) => contract.startBlock));
  const entries: [string, string][] = [
    [RPC_URL_ENV, rpcUrl as string],
    ...Object.entries(ADDRESS_ENV).map(([name, envName]) => [envName, deployment.contracts[name as keyof Deployment["contracts"]].address] as [string, string]),
    ["START_BLOCK", String(startBlock)],
    ["DEPLOYMENTS_FILE", file],
  ];
  return entries.map(([name, value]) => `export ${name}=${shellWord(value)}`);
}

const started = Date.now();
try {
  const deployment = await deployProtocolContracts({
    rpcUrl,
    deployer,
    performancePool: env.PERFORMANCE_POOL_ADDRESS ?? deployer.address,
    governanceAccounts: env.GOVERNANCE_ACCOUNTS ?? [],
    options: { epochLengthSeconds },
    onStep: (line) => console.error(`deploy: ${line}`),
  });
  writeDeployment(deployment, file);
  console.error(`deploy: done in ${Date.now() - started} ms; deployments file ${file}`);
  console.log(exportLines(deployment).join("\n"));
} catch (error) {
  console.error(`deploy: failed: ${(error as Error).message}`);
  process.exit(1);
}
