/**
 * Local Base chain: starts anvil (chain id 8453), deploys the protocol, seeds demo data,
 * writes the deployments file and keeps running until Ctrl-C.
 *   npm run devnet [-- --port 8545] [-- --no-seed] [-- --epoch-length 172800]
 */
import { parseArgs } from "node:util";
import { deploymentsFile, writeDeployment } from "../chain/deployments";
import { startAnvil } from "../devnet/anvil";
import { deployProtocol } from "../devnet/deploy";
import { seedDemo } from "../devnet/seed";

const { values } = parseArgs({
  options: {
    port: { type: "string", default: process.env.ANVIL_PORT ?? "8545" },
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
