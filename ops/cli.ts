import { parseArgs, type ParseArgsConfig } from "node:util";

type Options = NonNullable<ParseArgsConfig["options"]>;

/** True when the arguments ask for help (`--help` or `-h`). */
export function wantsHelp(argv: string[]): boolean {
  return argv.includes("--help") || argv.includes("-h");
}

/** Prints `usage` and exits: 0 when asked for, 2 (on stderr, after `problem`) for a usage error. */
export function exitWithUsage(usage: string, problem?: string): never {
  if (problem === undefined) {
    console.log(usage);
    process.exit(0);
  }
  console.error(`${problem}\n${usage}`);
  process.exit(2);
}

/**
 * Parses a command's arguments with node's parseArgs: `--help`/`-h` prints the usage and exits 0,
 * an unknown option or a missing value prints the problem and the usage and exits 2, never a
 * stack trace.
 */
export function parseCommandLine<const O extends Options>(spec: {
  usage: string;
  options: O;
  allowPositionals?: boolean;
  argv?: string[];
}) {
  const args = spec.argv ?? process.argv.slice(2);
  if (wantsHelp(args)) exitWithUsage(spec.usage);
  try {
    return parseArgs({ args, options: spec.options, allowPositionals: spec.allowPositionals ?? false, strict: true });
  } catch (error) {
    return exitWithUsage(spec.usage, (error as Error).message);
  }
}
