/**
 * GraphQL replicas behind the proxy (issue 38 item 3): two `npm run graphql` processes (`ponder
 * serve` on the views schema the indexer published) behind nginx, beside an API replica whose
 * `POST /graphql` forwards through the same proxy (PONDER_URL is nginx's GraphQL port). Queries
 * through the proxy are answered by both replicas, and one replica killed while queries flow costs
 * no query: nginx sends a query that failed on the dead replica to the other (a query is read-only).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runMigrations } from "../../api/db/migrate";
import { writeDeployment } from "../../chain/deployments";
import { type LocalChain, startAnvil } from "../../devnet/anvil";
import { deployProtocol } from "../../devnet/deploy";
import { startIndexer } from "../../ops/indexer";
import { type FreshDatabase, useFreshDatabase } from "../support/database";
import {
  type ApiReplica,
  findNginx,
  freePort,
  type GraphqlReplica,
  killGraphqlReplica,
  type NginxProxy,
  startApiReplica,
  startGraphqlReplica,
  startNginx,
  stopProcess,
} from "./support";

let dir: string;
let database: FreshDatabase;
let anvil: LocalChain | undefined;
let api: ApiReplica | undefined;
let graphql: GraphqlReplica[] = [];
let proxy: NginxProxy | undefined;

beforeAll(async () => {
  const nginx = findNginx();
  if (!nginx) throw new Error("the scale test needs nginx (apt-get install nginx): none on PATH or in /usr/sbin");
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "datamarket-scale-graphql-"));
  fs.chmodSync(dir, 0o755); // nginx's workers (nobody, when started as root) use its temp folders
  database = await useFreshDatabase();
  await runMigrations(database.url);
  // the views schema `chain`: the indexer publishes it once its backfill is done; then it is stopped
  // (GraphQL replicas read the views, they need no running indexer)
  anvil = await startAnvil();
  const deployment = await deployProtocol(anvil.rpcUrl);
  const deploymentsFile = path.join(dir, "deployments.json");
  writeDeployment({ ...deployment, rpcUrl: anvil.rpcUrl }, deploymentsFile);
  const indexer = await startIndexer({
    databaseUrl: database.url,
    schema: "scale_graphql",
    viewsSchema: "chain",
    rpcUrl: anvil.rpcUrl,
    deploymentsFile,
    logLevel: "warn",
    logFile: path.join(dir, "indexer.log"),
  });
  try {
    await indexer.waitUntilReady(180_000);
  } finally {
    await indexer.stop();
  }
  const chainEnv = { DATABASE_URL: database.url, DEPLOYMENTS_FILE: deploymentsFile, PONDER_VIEWS_SCHEMA: "chain", LOG_LEVEL: "warn", LOG_FORMAT: "json" };
  graphql = await Promise.all(["a", "b"].map((name) => startGraphqlReplica(name, dir, chainEnv)));
  const graphqlPort = await freePort();
  api = await startApiReplica("a", dir, {
    ...chainEnv,
    PONDER_URL: `http://127.0.0.1:${graphqlPort}`,
    TRUST_PROXY: "true",
    EVAL_WORKER_ENABLED: "false",
    EVAL_STORAGE_DIR: path.join(dir, "attachments"),
    EVAL_URL_SIGNING_SECRET: "scale-test-signing-secret-0123456789abcdef",
  });
  proxy = await startNginx(nginx, dir, [api], { graphql, graphqlPort });
});

afterAll(async () => {
  await proxy?.stop();
  if (api) await stopProcess(api.process);
  await Promise.all(graphql.map((replica) => killGraphqlReplica(replica, "SIGTERM")));
  await anvil?.stop();
  await database?.drop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

const QUERY = "{ pods(limit: 5) { totalCount items { id } } }";

interface Answer {
  status: number;
  upstream: string | null;
  body: { data?: { pods?: { totalCount: number } }; errors?: unknown[]; notJson?: string };
}

/** A query is a POST (Ponder answers GET /graphql with its playground page, whatever the query string). */
async function query(url: string): Promise<Answer> {
  const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ query: QUERY }) });
  const text = await response.text();
  let body: Answer["body"];
  try {
    body = JSON.parse(text) as Answer["body"];
  } catch {
    body = { notJson: text.slice(0, 200) }; // the proxy's own error page
  }
  return { status: response.status, upstream: response.headers.get("x-upstream"), body };
}

const viaProxy = () => `http://127.0.0.1:${proxy!.graphql}/graphql`;

describe("two GraphQL replicas behind nginx, beside an API replica", () => {
  it("queries through the proxy are answered by both replicas, and the API's POST /graphql goes through it too", async () => {
    const answers = await Promise.all(Array.from({ length: 24 }, () => query(viaProxy())));
    expect(answers.map((answer) => answer.status)).toEqual(Array(24).fill(200));
    for (const answer of answers) {
      expect(answer.body.errors).toBeUndefined();
      expect(answer.body.data?.pods?.totalCount).toBe(0); // a freshly deployed protocol: no pod yet
    }
    const ports = new Set(answers.map((answer) => answer.upstream?.split(":").at(-1)));
    expect(ports).toEqual(new Set(graphql.map((replica) => String(replica.port))));

    const forwarded = await query(`http://127.0.0.1:${proxy!.platform}/graphql`);
    expect(forwarded.status).toBe(200);
    expect(forwarded.body.data?.pods?.totalCount).toBe(0);
  });

  it("one GraphQL replica killed (SIGKILL, with its Ponder process) under load: every query answers 200", async () => {
    const [survivor, victim] = graphql as [GraphqlReplica, GraphqlReplica];
    const answers: Answer[] = [];
    let stop = false;
    const worker = async () => {
      while (!stop) answers.push(await query(viaProxy()));
    };
    const workers = Array.from({ length: 8 }, worker);
    const servedBy = (replica: GraphqlReplica) => answers.filter((answer) => answer.upstream?.endsWith(`:${replica.port}`)).length;
    while (servedBy(victim) < 20) await new Promise((resolve) => setTimeout(resolve, 20));
    await killGraphqlReplica(victim, "SIGKILL");
    const killedAt = answers.length;
    while (answers.length < killedAt + 200) await new Promise((resolve) => setTimeout(resolve, 20));
    stop = true;
    await Promise.all(workers);
    expect(answers.filter((answer) => answer.status !== 200)).toEqual([]);
    expect(answers.filter((answer) => answer.body.data?.pods?.totalCount !== 0)).toEqual([]);
    // after the kill the survivor carries the load
    expect(answers.slice(killedAt + 100).every((answer) => answer.upstream?.endsWith(`:${survivor.port}`))).toBe(true);
  });
});
