/**
 * `npm run build:client`: regenerates client/{platform,chat,eval}.ts from the apps' OpenAPI
 * documents, then compiles the client package (client/dist: JavaScript and declarations).
 */
import path from "node:path";
import { parseCommandLine } from "../ops/cli";
import { buildClientPackage, generateClientTypes, writeFiles } from "./lib/client-types";

parseCommandLine({
  usage: `Usage: npm run build:client
  Regenerates client/{platform,chat,eval}.ts from the three surfaces' OpenAPI documents and
  compiles the client package into client/dist (then \`npm pack ./client\` makes its tarball).`,
  options: {},
});

const files = await generateClientTypes();
writeFiles(files);
for (const file of files.keys()) console.log(`wrote ${path.relative(process.cwd(), file)}`);
buildClientPackage();
console.log("built client/dist");
