import { existsSync, readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import * as abis from "../../abis";
import { bytecode } from "../../chain/bytecode.generated";

const root = path.resolve(import.meta.dirname, "../..");

type BuildModule = typeof import("../../scripts/build-contracts");

describe("committed contract artifacts", () => {
  let build: BuildModule;
  let compiled: ReturnType<BuildModule["compileContracts"]>;
  let rendered: Record<string, string>;
  const logs: unknown[][] = [];
  let exitCalls = 0;

  beforeAll(async () => {
    // importing the build script must not run its CLI (no output, no exit, no writes)
    const log = vi.spyOn(console, "log").mockImplementation((...args) => void logs.push(args));
    const error = vi.spyOn(console, "error").mockImplementation((...args) => void logs.push(args));
    const exit = vi.spyOn(process, "exit").mockImplementation((() => {
      exitCalls++;
    }) as never);
    try {
      build = await import("../../scripts/build-contracts");
    } finally {
      log.mockRestore();
      error.mockRestore();
      exit.mockRestore();
    }
    compiled = build.compileContracts();
    rendered = build.renderArtifacts(compiled);
  });

  afterEach(() => {
    vi.restoreAllMocks();
  });

  it("importing scripts/build-contracts does not run its CLI", () => {
    expect(logs).toEqual([]);
    expect(exitCalls).toBe(0);
    expect(typeof build.compileContracts).toBe("function");
    expect(typeof build.renderArtifacts).toBe("function");
  });

  it("compiles every deployable contract from contracts/", () => {
    expect(Object.keys(compiled.artifacts).sort()).toEqual([...build.DEPLOYABLE].sort());
    for (const { abi, bytecode: code } of Object.values(compiled.artifacts)) {
      expect(abi.length).toBeGreaterThan(0);
      expect(code).toMatch(/^0x[0-9a-f]{200,}$/);
    }
  });

  it("the committed ABIs, abis/index.ts and chain/bytecode.generated.ts are byte-identical to a fresh build of the Solidity sources", () => {
    const stale: string[] = [];
    for (const [rel, content] of Object.entries(rendered)) {
      const file = path.join(root, rel);
      const current = existsSync(file) ? readFileSync(file, "utf8") : "<missing>";
      if (current !== content) stale.push(rel);
    }
    expect(stale, "stale artifacts: run npm run build:contracts").toEqual([]);
  });

  it("abis/ holds no generated ABI file for a contract that no longer exists", () => {
    const committed = readdirSync(path.join(root, "abis"))
      .filter((name) => name.endsWith(".ts"))
      .map((name) => `abis/${name}`)
      .sort();
    const expected = Object.keys(rendered)
      .filter((rel) => rel.startsWith("abis/"))
      .sort();
    expect(committed).toEqual(expected);
  });

  it("the ABI objects and creation bytecode the code imports equal the compiler output", () => {
    const exported = abis as Record<string, unknown>;
    for (const [name, { abi, bytecode: code }] of Object.entries(compiled.artifacts)) {
      expect(exported[`${name}Abi`], `${name}Abi`).toEqual(abi);
      expect((bytecode as Record<string, string>)[name], `${name} bytecode`).toBe(code);
    }
  });
});
