/**
 * A PostgreSQL primary of the test's own (initdb, wal_level=replica) and hot standbys streaming
 * from it (pg_basebackup -R), each a `postgres` process on a free port in a temp directory.
 * The machine's PostgreSQL is not used: its pg_hba.conf need not allow replication connections.
 *
 * Binaries: `pg_config --bindir` (PostgreSQL 15 on the CI image), else PG_BINDIR. Run as root, the
 * clusters run as the `postgres` OS user (PostgreSQL refuses root) through `setpriv`, which execs:
 * the spawned process is the postmaster itself, so a signal sent to it reaches PostgreSQL.
 *
 *   const primary = await startPrimary();
 *   const standby = await startStandby(primary);
 *   await primary.createDatabase("app");            // replicated to the standby
 *   ... primary.url("app"), standby.url("app") ...
 *   await standby.stop(); await primary.stop();     // processes and data directories gone
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import { freePort } from "../../ops/net";
import os from "node:os";
import path from "node:path";
import pg from "pg";

export interface PgCluster {
  port: number;
  dataDir: string;
  process: ChildProcess;
  /** postgres://postgres@127.0.0.1:<port>/<database> (trust authentication). */
  url(database?: string): string;
  /** One statement on `database` (default postgres), on a connection of its own. */
  query<T extends pg.QueryResultRow = pg.QueryResultRow>(
    sql: string,
    params?: unknown[],
    database?: string,
  ): Promise<T[]>;
  /** Ends the postmaster with `signal` (SIGQUIT: immediate shutdown, SIGKILL: crash) and waits. */
  kill(signal?: NodeJS.Signals): Promise<void>;
  /** Fast shutdown, then the data directory is removed. Safe to call twice. */
  stop(): Promise<void>;
}

export interface PrimaryCluster extends PgCluster {
  createDatabase(name: string): Promise<void>;
}

function bindir(): string {
  if (process.env.PG_BINDIR) return process.env.PG_BINDIR;
  try {
    return execFileSync("pg_config", ["--bindir"], { encoding: "utf8" }).trim();
  } catch {
    return "/usr/lib/postgresql/15/bin";
  }
}

const asRoot = typeof process.getuid === "function" && process.getuid() === 0;

function osUser(): { uid: number; gid: number } | undefined {
  if (!asRoot) return undefined;
  const line = fs
    .readFileSync("/etc/passwd", "utf8")
    .split("\n")
    .find((l) => l.startsWith("postgres:"));
  if (!line) throw new Error("running as root, PostgreSQL needs a 'postgres' OS user to run as");
  const [, , uid, gid] = line.split(":");
  return { uid: Number(uid), gid: Number(gid) };
}

/** argv for `binary args…`, as the postgres OS user when running as root. */
function command(binary: string, args: string[]): [string, string[]] {
  const file = path.join(bindir(), binary);
  if (!asRoot) return [file, args];
  return ["setpriv", ["--reuid=postgres", "--regid=postgres", "--init-groups", "--", file, ...args]];
}

function run(binary: string, args: string[]): void {
  const [file, argv] = command(binary, args);
  execFileSync(file, argv, { stdio: "pipe", cwd: os.tmpdir() });
}

export { freePort };

/** A directory the postgres OS user owns (PostgreSQL wants its data directory 0700 and its own). */
function clusterDir(prefix: string): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const user = osUser();
  if (user) fs.chownSync(root, user.uid, user.gid);
  fs.chmodSync(root, 0o700);
  return root;
}

const urlOf =
  (port: number) =>
  (database = "postgres") =>
    `postgres://postgres@127.0.0.1:${port}/${database}`;

async function queryOn<T extends pg.QueryResultRow>(url: string, sql: string, params?: unknown[]): Promise<T[]> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    return (await client.query<T>(sql, params)).rows;
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function waitReady(url: string, child: ChildProcess, log: string, within = 60_000): Promise<void> {
  const until = Date.now() + within;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`postgres exited (${child.exitCode ?? child.signalCode}); log:\n${readTail(log)}`);
    }
    const ok = await queryOn(url, "SELECT 1").then(
      () => true,
      () => false,
    );
    if (ok) return;
    if (Date.now() > until)
      throw new Error(`postgres did not accept connections within ${within} ms; log:\n${readTail(log)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function readTail(file: string): string {
  try {
    return fs.readFileSync(file, "utf8").slice(-3000);
  } catch {
    return "(no log)";
  }
}

function exited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

function signalAndWait(child: ChildProcess, signal: NodeJS.Signals, within = 30_000): Promise<void> {
  if (exited(child)) return Promise.resolve();
  return new Promise((resolve) => {
    const force = setTimeout(() => child.kill("SIGKILL"), within);
    child.once("exit", () => {
      clearTimeout(force);
      resolve();
    });
    child.kill(signal);
  });
}

const live = new Set<PgCluster>();
// a test that throws past its afterAll must still leave no postmaster behind
process.once("exit", () => {
  for (const cluster of live) if (!exited(cluster.process)) cluster.process.kill("SIGQUIT");
});

async function startPostgres(
  root: string,
  dataDir: string,
  port: number,
  settings: Record<string, string>,
): Promise<PgCluster> {
  const log = path.join(root, "postgres.log");
  const args = ["-D", dataDir, "-p", String(port), "-k", root, "-c", "listen_addresses=127.0.0.1"];
  for (const [key, value] of Object.entries(settings)) args.push("-c", `${key}=${value}`);
  const [file, argv] = command("postgres", args);
  const out = fs.openSync(log, "a");
  if (asRoot) {
    const user = osUser();
    if (user) fs.fchownSync(out, user.uid, user.gid);
  }
  const child = spawn(file, argv, { stdio: ["ignore", out, out], cwd: root });
  fs.closeSync(out);
  const url = urlOf(port);
  let stopped = false;
  const cluster: PgCluster = {
    port,
    dataDir,
    process: child,
    url,
    query: (sql, params, database) => queryOn(url(database), sql, params),
    kill: (signal = "SIGQUIT") => signalAndWait(child, signal),
    stop: async () => {
      if (stopped) return;
      stopped = true;
      await signalAndWait(child, "SIGINT"); // fast shutdown
      live.delete(cluster);
      fs.rmSync(root, { recursive: true, force: true });
    },
  };
  live.add(cluster);
  try {
    await waitReady(url(), child, log);
  } catch (error) {
    await cluster.stop();
    throw error;
  }
  return cluster;
}

/** Settings of both: small and quick for tests (no fsync: a test's data need not survive the machine). */
const COMMON = {
  fsync: "off",
  full_page_writes: "off",
  max_connections: "200",
  shared_buffers: "64MB",
};

/** A fresh primary: wal_level=replica, replication connections trusted from 127.0.0.1 (initdb's default pg_hba). */
export async function startPrimary(): Promise<PrimaryCluster> {
  const root = clusterDir("datamarket-pg-primary-");
  const dataDir = path.join(root, "data");
  try {
    run("initdb", ["-D", dataDir, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--locale=C", "--no-sync"]);
  } catch (error) {
    fs.rmSync(root, { recursive: true, force: true });
    const stderr = (error as { stderr?: Buffer }).stderr?.toString() ?? "";
    throw new Error(`initdb failed: ${stderr || (error as Error).message}`);
  }
  const port = await freePort();
  const cluster = await startPostgres(root, dataDir, port, {
    ...COMMON,
    wal_level: "replica",
    max_wal_senders: "10",
    wal_keep_size: "256MB",
  });
  return {
    ...cluster,
    createDatabase: async (name) => {
      await cluster.query(`CREATE DATABASE ${pg.escapeIdentifier(name)}`);
    },
  };
}

/** A hot standby of `primary` (pg_basebackup -R: it streams from the primary and answers reads). */
export async function startStandby(primary: PgCluster): Promise<PgCluster> {
  const root = clusterDir("datamarket-pg-standby-");
  const dataDir = path.join(root, "data");
  try {
    run("pg_basebackup", [
      "-h",
      "127.0.0.1",
      "-p",
      String(primary.port),
      "-U",
      "postgres",
      "-D",
      dataDir,
      "-R",
      "-X",
      "stream",
      "--checkpoint=fast",
      "--no-sync",
    ]);
  } catch (error) {
    fs.rmSync(root, { recursive: true, force: true });
    const stderr = (error as { stderr?: Buffer }).stderr?.toString() ?? "";
    throw new Error(`pg_basebackup failed: ${stderr || (error as Error).message}`);
  }
  const port = await freePort();
  return startPostgres(root, dataDir, port, {
    ...COMMON,
    hot_standby: "on",
    // the standby tells the primary its replay position every second (pg_stat_replication)
    wal_receiver_status_interval: "1s",
  });
}

/** Waits until `standby` has replayed everything the primary had written when called. */
export async function waitForReplay(primary: PgCluster, standby: PgCluster, within = 30_000): Promise<void> {
  const [{ lsn }] = (await primary.query<{ lsn: string }>("SELECT pg_current_wal_lsn()::text AS lsn")) as [
    { lsn: string },
  ];
  const until = Date.now() + within;
  for (;;) {
    const rows = await standby.query<{ reached: boolean }>(
      "SELECT coalesce(pg_last_wal_replay_lsn() >= $1::pg_lsn, false) AS reached",
      [lsn],
    );
    if (rows[0]?.reached) return;
    if (Date.now() > until) throw new Error(`standby did not replay ${lsn} within ${within} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
