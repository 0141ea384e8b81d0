/**
 * The client package (client/) as an integrator installs it: built, packed with `npm pack`, unpacked
 * into a fresh project's node_modules, and compiled there under both module resolutions a
 * TypeScript project uses (NodeNext and Bundler); the NodeNext build then runs under Node.
 */
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildClientPackage, CLIENT_DIR } from "../../scripts/lib/client-types";

const ROOT = path.resolve(CLIENT_DIR, "..");
const TSC = createRequire(import.meta.url).resolve("typescript/bin/tsc");
let work: string;
let packedFiles: string[];

// A consumer's code: a wrong path must not compile (an unused @ts-expect-error is an error).
const CONSUMER = `import { createPlatformClient, type PlatformComponents } from "@datamarket/client";

const platform = createPlatformClient("http://127.0.0.1:9", {
  fetch: async () => new Response(JSON.stringify({ error: "Pod not found" }), { status: 404, headers: { "content-type": "application/json" } }),
});
const { data, error, response } = await platform.GET("/api/v1/public/pods/{podId}", { params: { path: { podId: "1" } } });
const message: string | undefined = error?.error;
// @ts-expect-error: no such path in the Platform API
await platform.GET("/api/v1/no-such-path");
type Stats = PlatformComponents["schemas"];
const stats: Stats | undefined = undefined;
console.log(JSON.stringify({ status: response.status, data: data ?? null, message, stats: stats ?? null }));
`;

function tsconfig(resolution: "NodeNext" | "Bundler") {
  return {
    compilerOptions: {
      target: "ES2022",
      module: resolution === "NodeNext" ? "NodeNext" : "ESNext",
      moduleResolution: resolution,
      lib: ["ES2022", "DOM"],
      types: [],
      strict: true,
      skipLibCheck: false,
      outDir: `out-${resolution}`,
    },
    files: ["main.ts", "readme.ts"],
  };
}

function compile(resolution: "NodeNext" | "Bundler") {
  const file = path.join(work, `tsconfig.${resolution}.json`);
  fs.writeFileSync(file, JSON.stringify(tsconfig(resolution)));
  return spawnSync(process.execPath, [TSC, "-p", file], { cwd: work, encoding: "utf8" });
}

beforeAll(() => {
  buildClientPackage();
  work = fs.mkdtempSync(path.join(os.tmpdir(), "client-consumer-"));
  const [packed] = JSON.parse(
    execFileSync("npm", ["pack", "--json", "--pack-destination", work], { cwd: CLIENT_DIR, encoding: "utf8" }),
  ) as { filename: string; files: { path: string }[] }[];
  packedFiles = packed!.files.map((f) => f.path).sort();
  const installed = path.join(work, "node_modules", "@datamarket", "client");
  fs.mkdirSync(installed, { recursive: true });
  execFileSync("tar", ["-xzf", path.join(work, packed!.filename), "-C", installed, "--strip-components=1"]);
  // its one dependency, as npm would install it beside the package
  fs.symlinkSync(path.join(ROOT, "node_modules", "openapi-fetch"), path.join(work, "node_modules", "openapi-fetch"));
  fs.writeFileSync(path.join(work, "package.json"), JSON.stringify({ name: "consumer", private: true, type: "module" }));
  fs.writeFileSync(path.join(work, "main.ts"), CONSUMER);
  const readme = fs.readFileSync(path.join(CLIENT_DIR, "README.md"), "utf8");
  fs.writeFileSync(path.join(work, "readme.ts"), `${/```ts\n([\s\S]*?)```/.exec(readme)![1]}\nexport {};\n`);
}, 120_000);

afterAll(() => {
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

describe("the client package", { timeout: 120_000 }, () => {
  it("packs its built JavaScript, declarations and README, not its sources", () => {
    expect(packedFiles).toEqual(
      expect.arrayContaining(["README.md", "dist/index.js", "dist/index.d.ts", "dist/platform.d.ts", "package.json"]),
    );
    expect(packedFiles.filter((f) => f.endsWith(".ts") && !f.endsWith(".d.ts"))).toEqual([]);
  });

  it.each(["NodeNext", "Bundler"] as const)("compiles in a project with %s resolution, paths type-checked, the README's example too", (resolution) => {
    const result = compile(resolution);
    expect(result.stdout + result.stderr).toBe("");
    expect(result.status).toBe(0);
  });

  it("runs under Node from the NodeNext build: the answer's error body typed and decoded", () => {
    if (!fs.existsSync(path.join(work, "out-NodeNext", "main.js"))) expect(compile("NodeNext").status).toBe(0);
    const output = execFileSync(process.execPath, [path.join(work, "out-NodeNext", "main.js")], { encoding: "utf8" });
    expect(JSON.parse(output)).toEqual({ status: 404, data: null, message: "Pod not found", stats: null });
  });
});
