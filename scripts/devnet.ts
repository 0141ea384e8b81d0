/**
 * Local Base chain: starts anvil (chain id 8453), deploys the protocol, seeds demo data,
 * writes the deployments file and keeps running until Ctrl-C.
 *   npm run devnet [-- --port 8545] [-- --no-seed] [-- --epoch-length 172800]
 */
import { deploymentsFile, writeDeployment } from "../chain/deployments";
import { startAnvil } from "../devnet/anvil";
import { deployProtocol } from "../devnet/deploy";
import { seedDemo } from "../devnet/seed";
import { parseCommandLine } from "../ops/cli";
import { parseOperatorEnv } from "../api/env";

const USAGE = `Usage: npm run devnet -- [--port <port>] [--no-seed] [--epoch-length <seconds>]
  Starts anvil (chain id 8453), deploys the protocol, seeds demo data (unless --no-seed),
  writes the deployments file and runs until Ctrl-C.
  --port            port of the chain (default: ANVIL_PORT or 8545)
  --no-seed         deploy only
  --epoch-length    epoch length in seconds (default 172800)`;

const { values } = parseCommandLine({
  usage: USAGE,
  options: {
    port: { type: "string", default: String(parseOperatorEnv().ANVIL_PORT) },
    "no-seed": { type: "boolean", default: false },
    "epoch-length": { type: "string" },
  },
});

const started = Date.now();
const chain = await startAnvil({ port: Number(values.port) });
const deployment = await deployProtocol(chain.rpcUrl, {
  epochLengthSeconds: values["epoch-length"] ? Number(values["epoch-length"]) : undefined,
});
const deployed = Date.now();
const summary = values["no-seed"] ? undefined : await seedDemo(chain.rpcUrl, deployment);
writeDeployment(deployment);

console.log(`anvil (chain 8453) on ${chain.rpcUrl}`);
for (const [name, { address, startBlock }] of Object.entries(deployment.contracts)) {
  console.log(`  ${name.padEnd(14)} ${address}  (block ${startBlock})`);
}
console.log(`deployments written to ${deploymentsFile()}`);
const counts = summary && (({ seeded: _seeded, ...rest }) => rest)(summary);
console.log(`deploy ${deployed - started} ms` + (counts ? `, seed ${Date.now() - deployed} ms: ${JSON.stringify(counts)}` : ""));
console.log("Ctrl-C stops the chain.");

const stop = async () => {
  await chain.stop();
  process.exit(0);
};
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
