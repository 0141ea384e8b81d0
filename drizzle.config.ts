import { defineConfig } from "drizzle-kit";

export default defineConfig({
  dialect: "postgresql",
  schema: "./api/db/offchain/index.ts",
  out: "./api/db/migrations",
  schemaFilter: ["offchain"],
});
