import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { API_VARIABLES } from "../../api/env";

describe(".env.example", () => {
  it("lists every variable the API reads", () => {
    const listed = new Set([...fs.readFileSync(".env.example", "utf8").matchAll(/^# ([A-Z][A-Z0-9_]+)=/gm)].map((m) => m[1]));
    expect(API_VARIABLES.filter((name) => name !== "NODE_ENV" && !listed.has(name))).toEqual([]);
  });
});
