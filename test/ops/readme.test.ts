/**
 * The README's commands run as written against a local instance (seeded devnet, indexer, the
 * three surfaces), so the README cannot rot. The only edits the test makes: the surfaces' real
 * ports replace 3000/3001/3002, and `npm` runs the project's scripts from a scratch folder whose
 * `.data/` holds the instance's key files.
 */
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../api/config";
import { runMigrations } from "../../api/db/migrate";
import { startApiServer, type ApiServer } from "../../api/server";
import { writeDeployment } from "../../chain/deployments";
import { publishDemoMetadata } from "../../devnet/demo-metadata";
import { PROJECT_ROOT, startIndexer, type Indexer } from "../../ops/indexer";
import { startDevnet, type Devnet } from "../support/chain";
import { useFreshDatabase, type FreshDatabase } from "../support/database";

const run = promisify(execFile);
const readme = fs.readFileSync(path.join(PROJECT_ROOT, "README.md"), "utf8");
const shellBlocks = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1]!);

let devnet: Devnet;
let database: FreshDatabase;
let indexer: Indexer;
let api: ApiServer;
let workDir: string;

beforeAll(async () => {
  workDir = fs.mkdtempSync(path.join(os.tmpdir(), "readme-test-"));
  [devnet, database] = await Promise.all([startDevnet({ seed: true }), useFreshDatabase()]);
  await runMigrations(database.url);
  const deploymentsFile = path.join(workDir, "deployments.json");
  writeDeployment(devnet.deployment, deploymentsFile);
  indexer = await startIndexer({
    databaseUrl: database.url,
    schema: "readme_test",
    viewsSchema: "chain",
    rpcUrl: devnet.chain.rpcUrl,
    deploymentsFile,
    logLevel: "warn",
    logFile: path.join(workDir, "indexer.log"),
  });
  // what npm start gives the surfaces; key files where the README's commands look for them
  Object.assign(process.env, {
    DATABASE_URL: database.url,
    PONDER_URL: indexer.url,
    PONDER_RPC_URL_8453: devnet.chain.rpcUrl,
    DEPLOYMENTS_FILE: deploymentsFile,
    STATS_API_KEY_FILE: path.join(workDir, ".data/platform/stats-api-key"),
    IDP_LOCAL_KEY_FILE: path.join(workDir, ".data/idp/local-idp-key.json"),
  });
  await indexer.waitUntilReady(120_000);
  await indexer.waitForBlock(await devnet.protocol.publicClient.getBlockNumber(), 60_000);
  api = await startApiServer(
    loadConfig({ ...process.env, LOG_LEVEL: "silent", PLATFORM_PORT: "0", CHAT_PORT: "0", EVAL_PORT: "0" }),
  );
  await publishDemoMetadata({
    platformUrl: api.urls.platform,
    summary: devnet.seed!,
    idpKeyFile: process.env.IDP_LOCAL_KEY_FILE,
  });
});

afterAll(async () => {
  await api?.close().catch(() => undefined);
  await indexer?.stop().catch(() => undefined);
  await devnet?.chain.stop().catch(() => undefined);
  await database?.drop().catch(() => undefined);
  if (workDir) fs.rmSync(workDir, { recursive: true, force: true });
});

/** Runs a README block in bash; every curl call is recorded as "<curl exit code> <HTTP status>". */
async function runBlock(block: string) {
  const codesFile = path.join(workDir, "curl-codes");
  fs.writeFileSync(codesFile, "");
  const script = block
    .replaceAll("http://127.0.0.1:3000", api.urls.platform)
    .replaceAll("http://127.0.0.1:3001", api.urls.chat)
    .replaceAll("http://127.0.0.1:3002", api.urls.eval);
  const preamble = [
    `curl() { local out rc; out=$(command curl -w '\\n%{http_code}' "$@"); rc=$?;`,
    `  echo "$rc \${out##*$'\\n'}" >> ${JSON.stringify(codesFile)}; printf '%s\\n' "\${out%$'\\n'*}"; return $rc; }`,
    `npm() { command npm --prefix ${JSON.stringify(PROJECT_ROOT)} "$@"; }`,
  ].join("\n");
  const { stdout } = await run("bash", ["-c", `${preamble}\n${script}`], { cwd: workDir, timeout: 120_000 });
  const calls = fs
    .readFileSync(codesFile, "utf8")
    .trim()
    .split("\n")
    .map((line) => line.split(" ").map(Number) as [number, number]);
  return { stdout, calls };
}

describe("README", () => {
  it("quick start: its two commands are the ones CI runs on a fresh clone", () => {
    const quickStart = shellBlocks.find((block) => block.includes("npm start"))!;
    const commands = quickStart.split("\n").map((line) => line.replace(/#.*/, "").trim()).filter(Boolean);
    expect(commands).toEqual(["npm install && npm start", "npm install && npm test"]);
    const newcomer = fs.readFileSync(path.join(PROJECT_ROOT, ".ci/newcomer"), "utf8");
    expect(newcomer).toMatch(/npm install/);
    expect(newcomer).toMatch(/npm start/);
    expect(fs.readFileSync(path.join(PROJECT_ROOT, ".ci/run"), "utf8")).toMatch(/npm test/);
  });

  it("using the API: every command runs as written; every request is answered, 2xx but the placeholder txHash", async () => {
    const block = shellBlocks.find((candidate) => candidate.startsWith("API="))!;
    const { stdout, calls } = await runBlock(block);
    // every curl of the block ran (none skipped by an earlier failure)
    expect(calls).toHaveLength(block.match(/\bcurl -/g)!.length);
    for (const [curlExit] of calls) expect(curlExit).toBe(0);
    const statuses = calls.map(([, status]) => status);
    if (process.env.README_TEST_DEBUG) console.log(statuses, stdout);
    expect(statuses.filter((status) => status >= 500)).toEqual([]);
    // the boost placeholder is the one refusal, with the flat error body
    expect(statuses.filter((status) => status >= 300)).toEqual([400]);
    expect(stdout).toMatch(/\{"error":"[^"]+"\}/);
  });
});
