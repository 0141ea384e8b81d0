/**
 * `npm run api` in production mode, run as an operator would: with local defaults left in place it
 * refuses to start with one message naming every missing setting; with a complete environment
 * (secrets from files, an identity provider's public key) it starts and serves.
 */
import { spawn } from "node:child_process";
import { generateKeyPairSync } from "node:crypto";
import fs from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import readline from "node:readline";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PROJECT_ROOT } from "../../ops/indexer";
import { useFreshDatabase, type FreshDatabase } from "../support/database";

const tsxLoader = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;
let workDir: string;
let database: FreshDatabase;

/** The environment of a test run without anything that would configure the API for it. */
function cleanEnv(): Record<string, string> {
  const keep = ["PATH", "HOME", "TMPDIR", "LANG"];
  return Object.fromEntries(keep.flatMap((name) => (process.env[name] ? [[name, process.env[name]!]] : [])));
}

function runApi(env: Record<string, string>) {
  const child = spawn(process.execPath, ["--import", tsxLoader, path.join(PROJECT_ROOT, "api/main.ts")], {
    cwd: workDir,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...cleanEnv(), LOG_FORMAT: "json", ...env },
  });
  const lines: string[] = [];
  for (const stream of [child.stdout!, child.stderr!]) readline.createInterface({ input: stream }).on("line", (line) => lines.push(line));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return { child, lines, exited };
}

beforeAll(async () => {
  workDir = fs.mkdtempSync(path.join(os.tmpdir(), "production-mode-"));
  database = await useFreshDatabase();
});

afterAll(async () => {
  await database?.drop().catch(() => undefined);
  fs.rmSync(workDir, { recursive: true, force: true });
});

describe("npm run api in production mode", { timeout: 120_000 }, () => {
  it("refuses to start with one message naming every missing setting, and writes nothing to .data", async () => {
    const api = runApi({ NODE_ENV: "production", HOST: "0.0.0.0", PLATFORM_PORT: "0", CHAT_PORT: "0", EVAL_PORT: "0" });
    expect(await api.exited).toBe(1);
    const output = api.lines.join("\n");
    expect(api.lines.filter((line) => line.startsWith("Production mode"))).toHaveLength(1);
    for (const name of ["DATABASE_URL", "PONDER_URL", "IDP_JWKS_URL or IDP_PUBLIC_KEY", "STATS_API_KEYS", "EVAL_URL_SIGNING_SECRET", "EVAL_PUBLIC_URL", "METRICS_TOKEN"]) {
      expect(output).toContain(name);
    }
    expect(output).not.toMatch(/\n\s+at /);
    expect(fs.existsSync(path.join(workDir, ".data"))).toBe(false);
  });

  it("an external chain implies it", async () => {
    const api = runApi({ PONDER_RPC_URL_8453: "https://base-node.example.org", PLATFORM_PORT: "0", CHAT_PORT: "0", EVAL_PORT: "0" });
    expect(await api.exited).toBe(1);
    expect(api.lines.join("\n")).toMatch(/^Production mode \(PONDER_RPC_URL_8453 is not a local devnet\) refuses local defaults; set: DATABASE_URL/m);
  });

  it("starts with a complete environment, secrets read from files, and generates nothing locally", async () => {
    const secrets = path.join(workDir, "secrets");
    fs.mkdirSync(secrets);
    const { publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
    fs.writeFileSync(path.join(secrets, "idp.pem"), publicKey.export({ type: "spki", format: "pem" }));
    fs.writeFileSync(path.join(secrets, "stats"), "stats-key-of-every-replica\n");
    fs.writeFileSync(path.join(secrets, "signing"), `${"k".repeat(48)}\n`);
    fs.writeFileSync(path.join(secrets, "metrics"), "metrics-token-0123456789\n");
    const api = runApi({
      NODE_ENV: "production",
      DATABASE_URL: database.url,
      PONDER_URL: "http://127.0.0.1:9",
      HOST: "0.0.0.0",
      PLATFORM_PORT: "0",
      CHAT_PORT: "0",
      EVAL_PORT: "0",
      IDP_PUBLIC_KEY_FILE: path.join(secrets, "idp.pem"),
      STATS_API_KEYS_FILE: path.join(secrets, "stats"),
      EVAL_URL_SIGNING_SECRET_FILE: path.join(secrets, "signing"),
      METRICS_TOKEN_FILE: path.join(secrets, "metrics"),
      EVAL_PUBLIC_URL: "https://eval.example.org/api/v1",
      EVAL_WORKER_ENABLED: "false",
    });
    try {
      let urls: { platform: string; chat: string } | undefined;
      while (!urls) {
        const line = api.lines.find((l) => l.includes('"API listening"'));
        if (line) urls = (JSON.parse(line) as { urls: { platform: string; chat: string } }).urls;
        else if (api.child.exitCode !== null) throw new Error(api.lines.join("\n"));
        else await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect((await fetch(`${urls.platform}/health`)).status).toBe(200);
      const stats = await fetch(`${urls.platform}/api/v1/stats/summary`, { headers: { Authorization: "Bearer stats-key-of-every-replica" } });
      expect(stats.status).not.toBe(401);
      expect((await fetch(`${urls.chat}/metrics`)).status).toBe(401);
      expect((await fetch(`${urls.chat}/metrics`, { headers: { Authorization: "Bearer metrics-token-0123456789" } })).status).toBe(200);
      expect(fs.existsSync(path.join(workDir, ".data"))).toBe(false);
    } finally {
      api.child.kill("SIGTERM");
      await api.exited;
    }
  });
});
