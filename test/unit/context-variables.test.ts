/** The API reads request variables with `c.get`: `c.var` copies every variable on each access (api/http/types.ts). */
import fs from "node:fs";
import path from "node:path";
import { expect, it } from "vitest";

const API_DIR = path.join(import.meta.dirname, "../../api");
const C_VAR = /\bc\.var(\.|;|\[|\s*\})/;
const COMMENT = /^\s*(\*|\/\/|\/\*\*)/;

it("no code under api/ reads c.var", () => {
  const found: string[] = [];
  for (const entry of fs.readdirSync(API_DIR, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith(".ts")) continue;
    const file = path.join(entry.parentPath, entry.name);
    fs.readFileSync(file, "utf8")
      .split("\n")
      .forEach((line, i) => {
        if (C_VAR.test(line) && !COMMENT.test(line)) found.push(`${path.relative(API_DIR, file)}:${i + 1}: ${line.trim()}`);
      });
  }
  expect(found).toEqual([]);
});
