import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { emptiedHandlers } from "../../bench/ponder-floor";

const SRC = path.join(__dirname, "../../src");
const registrations = (source: string) => [...source.matchAll(/ponder\.on\(\s*"([^"]+)"/g)].map((m) => m[1]);

describe("the bench's Ponder floor (handlers emptied)", () => {
  it("keeps every registration of every handler file, in order, and nothing else", () => {
    let files = 0;
    for (const file of readdirSync(SRC).filter((name) => name.endsWith(".ts"))) {
      const source = readFileSync(path.join(SRC, file), "utf8");
      const emptied = emptiedHandlers(source);
      if (registrations(source).length === 0) {
        expect(emptied, file).toBeUndefined();
        continue;
      }
      files++;
      expect(registrations(emptied!), file).toEqual(registrations(source));
      const body = emptied!.split("\n").filter((line) => line !== "");
      expect(body[0]).toBe('import { ponder } from "ponder:registry";');
      for (const line of body.slice(1))
        expect(line, file).toMatch(/^ponder\.on\("[A-Za-z0-9_]+:[A-Za-z0-9_]+", async \(\) => \{\}\);$/);
    }
    expect(files).toBe(4);
  });
});
