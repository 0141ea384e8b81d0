/**
 * A generated chain kept running for indexer work between bench runs:
 *   npx tsx bench/devchain.ts <events> [dense|sparse] <out-dir> [--calls-db <database>] [--noise <n>] [--gap <n>]
 * writes <out-dir>/deployments.json (with the anvil URL) and keeps anvil up until SIGINT/SIGTERM.
 * --noise: n unrelated transfers in every generated block (a busy Base block's other transactions);
 * --gap: n empty blocks after each generated block (a long chain on which the protocol is quiet).
 * --calls-db: for chains too long to keep every block's state (1M events ≈ 130 GB on disk): anvil
 * keeps only recent states, and before generating, an indexer run on the deployed chain stores
 * the answers of its eth_calls at the deployment blocks in Ponder's RPC cache, in <database> (on
 * DATABASE_URL's server). Index such a chain with `index-once.ts --template <database>`.
 */
import path from "node:path";
import { writeDeployment } from "../chain/deployments";
import { startIndexer } from "../ops/indexer";
import { createDatabase, urlWithDatabase } from "../ops/postgres";
import { startBenchAnvil } from "./anvil";
import { deployProtocol } from "../devnet/deploy";
import { seedDemo } from "../devnet/seed";
import { generateChain } from "./chain-gen";

const args = process.argv.slice(2);
/** Removes `--name <value>` from args; its value. */
const option = (name: string) => {
  const at = args.indexOf(name);
  return at >= 0 ? args.splice(at, 2)[1] : undefined;
};
const callsDb = option("--calls-db");
const noisePerBlock = Number(option("--noise") ?? 0);
const gapBlocks = Number(option("--gap") ?? 0);
const [eventsArg, shapeArg, outDir] = args;
if (!eventsArg || !outDir || !Number.isInteger(noisePerBlock) || !Number.isInteger(gapBlocks)) {
  throw new Error("usage: devchain.ts <events> [dense|sparse] <out-dir> [--calls-db <database>] [--noise <n>] [--gap <n>]");
}
const chain = await startBenchAnvil({ persistStates: callsDb === undefined });
const deployment = await deployProtocol(chain.rpcUrl);
await seedDemo(chain.rpcUrl, deployment);
const deploymentsFile = path.join(outDir, "deployments.json");
writeDeployment({ ...deployment, rpcUrl: chain.rpcUrl }, deploymentsFile);
if (callsDb) {
  const serverUrl = process.env.DATABASE_URL;
  if (!serverUrl) throw new Error("--calls-db needs DATABASE_URL");
  await createDatabase(serverUrl, callsDb);
  const indexer = await startIndexer({
    databaseUrl: urlWithDatabase(serverUrl, callsDb),
    schema: "calls",
    viewsSchema: "calls_views",
    deploymentsFile,
    rpcUrl: chain.rpcUrl,
    logLevel: "warn",
    env: { PONDER_RPC_CACHE: "1" },
  });
  await indexer.waitUntilReady(5 * 60_000);
  await indexer.stop();
}
const generated = await generateChain(chain.rpcUrl, deployment, {
  events: Number(eventsArg),
  shape: shapeArg === "sparse" ? "sparse" : "dense",
  noisePerBlock,
  gapBlocks,
});
console.log(JSON.stringify({ rpcUrl: chain.rpcUrl, ...generated, head: Number(generated.head) }));
const stop = async () => {
  await chain.stop();
  process.exit(0);
};
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
setInterval(() => undefined, 1 << 30);
