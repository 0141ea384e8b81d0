import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
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

/**
 * Every npm script is a command a person runs, and each answers `--help` without running; the
 * exceptions are tools' own entry points (their help is the tool's) and the watch mode of `start`.
 */
const NOT_COMMANDS = new Set(["postinstall", "test", "test:browser", "test:scale", "typecheck", "lint", "dev", "db:generate"]);
const COMMANDS = Object.keys(
  (JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { scripts: Record<string, string> }).scripts,
).filter((name) => !NOT_COMMANDS.has(name));

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
