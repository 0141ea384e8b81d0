/** `npm run build:client`: regenerates client/{platform,chat,eval}.ts from the apps' OpenAPI documents. */
import path from "node:path";
import { generateClientTypes, writeFiles } from "./lib/client-types";

const files = await generateClientTypes();
writeFiles(files);
for (const file of files.keys()) console.log(`wrote ${path.relative(process.cwd(), file)}`);
