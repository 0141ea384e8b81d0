/** The API reads request variables with `c.get`: `c.var` copies every variable on each access (api/http/types.ts). */
import { execFileSync } from "node:child_process";
import { expect, it } from "vitest";

it("no code under api/ reads c.var", () => {
  let found = "";
  try {
    found = execFileSync("grep", ["-rnE", "\\bc\\.var(\\.|;|\\[| *\\})", "api/", "--include=*.ts"], { encoding: "utf8" });
  } catch (error) {
    // grep exits 1 when nothing matches
    if ((error as { status?: number }).status !== 1) throw error;
  }
  const code = found.split("\n").filter((line) => line && !/:\s*(\*|\/\/|\/\*\*)/.test(line));
  expect(code).toEqual([]);
});
