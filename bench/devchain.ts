/**
 * A generated chain kept running for indexer work between bench runs:
 *   npx tsx bench/devchain.ts <events> [dense|sparse] <out-dir>
 * writes <out-dir>/deployments.json (with the anvil URL) and keeps anvil up until SIGINT/SIGTERM.
 */
import path from "node:path";
import { writeDeployment } from "../chain/deployments";
import { startBenchAnvil } from "./anvil";
import { deployProtocol } from "../devnet/deploy";
import { seedDemo } from "../devnet/seed";
import { generateChain } from "./chain-gen";

const [eventsArg, shapeArg, outDir] = process.argv.slice(2);
if (!eventsArg || !outDir) throw new Error("usage: devchain.ts <events> [dense|sparse] <out-dir>");
const chain = await startBenchAnvil();
const deployment = await deployProtocol(chain.rpcUrl);
await seedDemo(chain.rpcUrl, deployment);
const generated = await generateChain(chain.rpcUrl, deployment, { events: Number(eventsArg), shape: shapeArg === "sparse" ? "sparse" : "dense" });
writeDeployment({ ...deployment, rpcUrl: chain.rpcUrl }, path.join(outDir, "deployments.json"));
console.log(JSON.stringify({ rpcUrl: chain.rpcUrl, ...generated, head: Number(generated.head) }));
const stop = async () => {
  await chain.stop();
  process.exit(0);
};
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
setInterval(() => undefined, 1 << 30);
