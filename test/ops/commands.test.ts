import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);

/** Runs `npm run -s <script> -- <args>` and returns its exit code and output. */
async function npmRun(script: string, args: string[]) {
  try {
    const { stdout, stderr } = await run("npm", ["run", "-s", script, "--", ...args], { timeout: 60_000 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

const COMMANDS = [
  "start",
  "api",
  "devnet",
  "idp:token",
  "eval:key",
  "eval:review",
  "moderate",
  "reindex",
  "reorgs",
  "build",
  "indexer",
  "graphql",
  "migrate",
  "deploy:protocol",
];

// one at a time: each spawns npm, tsx and the command (heavy on two cores)
describe("operator commands", { timeout: 120_000 }, () => {
  it.each(COMMANDS)("%s --help prints its usage and exits 0", async (script) => {
    const result = await npmRun(script, ["--help"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Usage:/m);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it.each(COMMANDS)("%s with an unknown option prints the usage and exits 2, never a stack trace", async (script) => {
    const result = await npmRun(script, ["--no-such-option"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/no-such-option/);
    expect(result.stderr).toMatch(/Usage:/);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });
});
