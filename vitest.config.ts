import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 240_000,
    // Integration files each start anvil, a database and sometimes the indexer; two cores.
    maxWorkers: 2,
    reporters: ["default"],
  },
});
