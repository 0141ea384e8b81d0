/**
 * Real components for the scale test: API replicas as `npm run api` processes, GraphQL replicas as
 * `npm run graphql` processes, and nginx in front of them with a generated configuration, all on
 * free ports in a temp directory.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import { freePort } from "../../ops/net";
import path from "node:path";

const ROOT = path.resolve(import.meta.dirname, "../..");

export { freePort };

async function waitFor(url: string, within: number, child?: ChildProcess, log?: string): Promise<void> {
  const until = Date.now() + within;
  for (;;) {
    if (child && child.exitCode !== null) {
      throw new Error(`${url}: process exited (${child.exitCode}); log:\n${log ? fs.readFileSync(log, "utf8").slice(-3000) : ""}`);
    }
    const ok = await fetch(url).then((r) => r.status < 500, () => false);
    if (ok) return;
    if (Date.now() > until) throw new Error(`${url} did not answer within ${within} ms`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

export interface ApiReplica {
  name: string;
  platform: number;
  chat: number;
  eval: number;
  process: ChildProcess;
  log: string;
}

/** One `npm run api` process (run.mjs directly: no npm in between, so a signal reaches the API). */
export async function startApiReplica(name: string, dir: string, env: Record<string, string>): Promise<ApiReplica> {
  const [platform, chat, evalPort] = [await freePort(), await freePort(), await freePort()];
  const log = path.join(dir, `api-${name}.log`);
  const out = fs.openSync(log, "a");
  const child = spawn(process.execPath, ["scripts/run.mjs", "api/main.ts"], {
    cwd: ROOT,
    env: {
      ...process.env,
      ...env,
      PLATFORM_PORT: String(platform),
      CHAT_PORT: String(chat),
      EVAL_PORT: String(evalPort),
    },
    stdio: ["ignore", out, out],
  });
  fs.closeSync(out);
  // generous: tsx compiles the API at start, slow on a busy CI machine
  await waitFor(`http://127.0.0.1:${evalPort}/health`, 180_000, child, log);
  return { name, platform, chat, eval: evalPort, process: child, log };
}

export function stopProcess(child: ChildProcess, signal: NodeJS.Signals = "SIGTERM"): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once("exit", () => resolve());
    child.kill(signal);
  });
}

/** nginx, else undefined: on PATH or in the usual sbin directories (it is often not on a user's PATH). */
export function findNginx(): string | undefined {
  const candidates = [...(process.env.PATH ?? "").split(path.delimiter), "/usr/sbin", "/usr/local/sbin", "/usr/local/nginx/sbin"];
  return candidates.map((dir) => path.join(dir, "nginx")).find((file) => fs.existsSync(file));
}

export interface NginxProxy {
  eval: number;
  platform: number;
  /** The GraphQL port, when GraphQL replicas were given. */
  graphql?: number;
  stop(): Promise<void>;
}

export interface GraphqlReplica {
  name: string;
  port: number;
  process: ChildProcess;
  log: string;
}

/**
 * One `npm run graphql` process (`ponder serve` on the views schema), in a process group of its
 * own: scripts/graphql.ts runs Ponder as its child, so killing the group is what a crashed
 * replica (or host) looks like, and nothing is left serving after `killGraphqlReplica`.
 */
export async function startGraphqlReplica(name: string, dir: string, env: Record<string, string>): Promise<GraphqlReplica> {
  const port = await freePort();
  const log = path.join(dir, `graphql-${name}.log`);
  const out = fs.openSync(log, "a");
  const child = spawn(process.execPath, ["scripts/run.mjs", "scripts/graphql.ts"], {
    cwd: ROOT,
    env: { ...process.env, ...env, PONDER_PORT: String(port), PONDER_HOST: "127.0.0.1" },
    stdio: ["ignore", out, out],
    detached: true,
  });
  fs.closeSync(out);
  // /ready: 200 once Ponder serves the views schema (its database answered)
  const until = Date.now() + 180_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`graphql ${name} exited (${child.exitCode}); log:\n${fs.readFileSync(log, "utf8").slice(-3000)}`);
    if (await fetch(`http://127.0.0.1:${port}/ready`).then((r) => r.status === 200, () => false)) break;
    if (Date.now() > until) throw new Error(`graphql ${name} was not ready within 180 s; log:\n${fs.readFileSync(log, "utf8").slice(-3000)}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return { name, port, process: child, log };
}

/** Signals the replica's whole process group (the command and its Ponder child) and waits for the command to exit. */
export function killGraphqlReplica(replica: GraphqlReplica, signal: NodeJS.Signals = "SIGKILL"): Promise<void> {
  const { process: child } = replica;
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once("exit", () => resolve());
    try {
      process.kill(-child.pid!, signal);
    } catch {
      resolve(); // the group is gone already
    }
  });
}

/**
 * nginx in front of the replicas, configured as ops/deploy/nginx.conf (passive health checks,
 * retries of a failed connection on the next replica), plus: the client address taken from the
 * test's X-Forwarded-For (as behind a CDN), so each scenario is its own client, and the replica
 * that answered in `X-Upstream`.
 */
export async function startNginx(
  binary: string,
  dir: string,
  replicas: ApiReplica[],
  options: { graphql?: GraphqlReplica[]; graphqlPort?: number } = {},
): Promise<NginxProxy> {
  const [evalPort, platformPort] = [await freePort(), await freePort()];
  const graphqlPort = options.graphql ? (options.graphqlPort ?? (await freePort())) : undefined;
  // as ops/deploy/nginx.conf: a GraphQL query is read-only, so one that failed on a replica is sent to the next
  const graphqlConf = options.graphql
    ? `upstream graphql { ${options.graphql.map((g) => `server 127.0.0.1:${g.port} max_fails=1 fail_timeout=10s;`).join(" ")} keepalive 16; }
  server { listen 127.0.0.1:${graphqlPort}; location / { proxy_pass http://graphql; proxy_next_upstream error timeout http_502 http_503 non_idempotent; proxy_next_upstream_tries 2; } }`
    : "";
  const upstream = (name: string, port: (r: ApiReplica) => number) =>
    `upstream ${name} { ${replicas.map((r) => `server 127.0.0.1:${port(r)} max_fails=1 fail_timeout=10s;`).join(" ")} keepalive 16; }`;
  const temp = (kind: string) => `${kind}_temp_path ${path.join(dir, `nginx-${kind}`)};`;
  const conf = `
pid ${path.join(dir, "nginx.pid")};
error_log ${path.join(dir, "nginx-error.log")} warn;
daemon off;
worker_processes 2;
events { worker_connections 2048; }
http {
  access_log off;
  ${["client_body", "proxy", "fastcgi", "uwsgi", "scgi"].map(temp).join("\n  ")}
  ${upstream("eval", (r) => r.eval)}
  ${upstream("platform", (r) => r.platform)}
  set_real_ip_from 127.0.0.1;
  real_ip_header X-Forwarded-For;
  proxy_http_version 1.1;
  proxy_set_header Connection "";
  proxy_set_header Host $http_host;
  proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
  proxy_next_upstream error timeout http_502 http_503;
  proxy_connect_timeout 2s;
  add_header X-Upstream $upstream_addr always;
  server { listen 127.0.0.1:${evalPort}; location / { proxy_pass http://eval; } }
  server { listen 127.0.0.1:${platformPort}; location / { proxy_pass http://platform; } }
  ${graphqlConf}
}
`;
  const file = path.join(dir, "nginx.conf");
  fs.writeFileSync(file, conf);
  execFileSync(binary, ["-t", "-q", "-p", dir, "-c", file], { stdio: "pipe" });
  const child = spawn(binary, ["-p", dir, "-c", file], { stdio: ["ignore", "ignore", "pipe"] });
  await waitFor(`http://127.0.0.1:${evalPort}/health`, 10_000, child);
  return { eval: evalPort, platform: platformPort, graphql: graphqlPort, stop: () => stopProcess(child, "SIGQUIT") };
}
