// Runs one of the project's commands: with NODE_ENV=production the compiled file in dist/
// (`npm run build`; needs no dev dependency), otherwise the TypeScript source through tsx, so a
// developer never runs a stale build. Usage: node scripts/run.mjs <source.ts> [arguments...]
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const source = process.argv[2];
if (!source?.endsWith(".ts")) {
  console.error("Usage: node scripts/run.mjs <source.ts> [arguments...]");
  process.exit(2);
}
// the command sees its own arguments at process.argv.slice(2), as when run directly
process.argv.splice(2, 1);

// The one read of the environment outside api/env.ts: this runs before any TypeScript can load.
if (process.env.NODE_ENV === "production") {
  const built = path.join(root, "dist", source.replace(/\.ts$/, ".js"));
  if (!existsSync(built)) {
    console.error(`${path.relative(root, built)} is missing: NODE_ENV=production runs the build; run npm run build first`);
    process.exit(1);
  }
  await import(pathToFileURL(built).href);
} else {
  const { register } = await import("tsx/esm/api");
  register();
  await import(pathToFileURL(path.join(root, source)).href);
}
