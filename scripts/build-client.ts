/** `npm run build:client`: regenerates client/{platform,chat,eval}.ts from the apps' OpenAPI documents. */
import path from "node:path";
import { parseCommandLine } from "../ops/cli";
import { generateClientTypes, writeFiles } from "./lib/client-types";

parseCommandLine({
  usage: `Usage: npm run build:client
  Regenerates client/{platform,chat,eval}.ts from the three surfaces' OpenAPI documents.`,
  options: {},
});

const files = await generateClientTypes();
writeFiles(files);
for (const file of files.keys()) console.log(`wrote ${path.relative(process.cwd(), file)}`);
