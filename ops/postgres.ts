import fs from "node:fs";
import path from "node:path";
import pg from "pg";
import {
  initCluster,
  prepareDirectoryForPostgres,
  resolveBinaries,
  resolveDataDir,
  startServer,
} from "./embedded-postgres";
import { isAlive } from "./leftovers";
import { freePort } from "./net";
import { tempDirRemovedAtExit } from "./temp-dir";
import { processEnv } from "../api/env";

export { postgresOwnerIds, prepareDirectoryForPostgres } from "./embedded-postgres";

/** A reachable PostgreSQL database and the way to release it. */
export interface DatabaseHandle {
  url: string;
  /** Where an embedded server keeps its cluster (absent for DATABASE_URL). */
  dataDir?: string;
  /** The embedded server's process, when this handle started it. */
  pid?: number;
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

/** Creates `name` as a copy of `template` (which must have no open connection). */
export async function copyDatabase(serverUrl: string, template: string, name: string): Promise<void> {
  await withClient(maintenanceUrl(serverUrl), async (client) => {
    await client.query(`CREATE DATABASE ${client.escapeIdentifier(name)} TEMPLATE ${client.escapeIdentifier(template)}`);
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
  if (!Number.isInteger(pid) || !Number.isInteger(port) || !isAlive(pid)) return null;
  return (await canConnect(serverUrl(port))) ? port : null;
}

function serverUrl(port: number): string {
  return `postgres://${EMBEDDED_USER}:${EMBEDDED_PASSWORD}@127.0.0.1:${port}/${MAINTENANCE_DATABASE}`;
}

/**
 * Starts (initialising on first use) a PostgreSQL server from the `embedded-postgres`
 * binaries with its data in `dataDir`, and returns the URL of database `database` on it. If a
 * server of this project is already running on the same directory, it is re-used and `stop()`
 * leaves it running.
 */
export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions = {}): Promise<DatabaseHandle> {
  const dataDir = resolveDataDir(path.resolve(options.dataDir ?? DEFAULT_EMBEDDED_DATA_DIR));
  const database = options.database ?? DEFAULT_EMBEDDED_DATABASE;

  const runningPort = await portOfRunningServer(dataDir);
  if (runningPort !== null) {
    await createDatabase(serverUrl(runningPort), database);
    return { url: urlWithDatabase(serverUrl(runningPort), database), stop: async () => undefined };
  }

  const binaries = resolveBinaries();
  if (!fs.existsSync(path.join(dataDir, "PG_VERSION"))) {
    await initCluster(binaries, dataDir, EMBEDDED_USER, EMBEDDED_PASSWORD);
  }
  const port = options.port ?? (await freePort());
  const server = await startServer(binaries, dataDir, port, options.onLog ?? (() => undefined)).catch((error) => {
    throw new Error(`Embedded PostgreSQL failed to start on port ${port}: ${error instanceof Error ? error.message : error}`);
  });

  const url = serverUrl(port);
  await createDatabase(url, database);
  return { url: urlWithDatabase(url, database), dataDir, pid: server.process.pid, stop: server.stop };
}

export interface ThrowawayPostgresOptions {
  /** Database the returned URL points at (created). */
  database: string;
  /** Name prefix of the temp directory that holds the cluster, e.g. "bench-pg-". */
  prefix: string;
}

/**
 * A fresh embedded PostgreSQL server whose cluster lives in a new temp directory (handed to the
 * postgres user when running as root). stop() stops the server and removes the directory; a
 * failed start removes it too, and so does this process's exit when stop() was never called
 * (the server itself then gets startServer's immediate shutdown).
 */
export async function startThrowawayPostgres(options: ThrowawayPostgresOptions): Promise<DatabaseHandle> {
  const root = tempDirRemovedAtExit(options.prefix);
  let server: DatabaseHandle;
  try {
    prepareDirectoryForPostgres(root.path);
    server = await startEmbeddedPostgres({ dataDir: path.join(root.path, "data"), database: options.database });
  } catch (error) {
    root.remove();
    throw error;
  }
  return {
    ...server,
    stop: async () => {
      await server.stop();
      root.remove();
    },
  };
}

/** The project's database: `DATABASE_URL` when set, else the persistent embedded server. */
export async function resolveDatabase(
  options: EmbeddedPostgresOptions & { env?: NodeJS.ProcessEnv } = {},
): Promise<DatabaseHandle> {
  const databaseUrl = (options.env ?? processEnv()).DATABASE_URL;
  if (databaseUrl) return { url: databaseUrl, stop: async () => undefined };
  return startEmbeddedPostgres(options);
}
