/**
 * A real PostgreSQL server (Debian's postgresql) for suites that run against one: each is its own cluster, made by
 * initdb in a fresh temporary directory (data, log and Unix socket), listening on a free 127.0.0.1 port with trust
 * authentication and durability off, so it touches nothing of the system's clusters. Suites skip without PostgreSQL
 * (`describe.skipIf(skipWithoutPostgres())`), except under CI, where startPostgres fails with how to get it.
 *
 * PostgreSQL refuses to run as root: a root test process runs initdb and postgres as the `postgres` system user
 * (Debian's package creates it) through util-linux's setpriv, else runuser, and gives that user the directory.
 */
import { execFile, spawn, spawnSync } from "node:child_process";
import {
  accessSync,
  chownSync,
  closeSync,
  constants,
  mkdtempSync,
  openSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { promisify } from "node:util";
import { Client } from "pg";
import { childrenOf, freePort, isRunning } from "./processes.js";
import { findProgram, postgresProgram, requireProgram, skipWithout } from "./system.js";

/** A running PostgreSQL server started by startPostgres. */
export interface Postgres {
  /** `postgres://postgres@127.0.0.1:<port>/<database>`: the superuser `postgres`, no password (trust). */
  url: string;
  /** The port it listens on, on 127.0.0.1. */
  port: number;
  /** The database created for the suite, empty. */
  database: string;
  /** Its temporary directory: data/ (the cluster), postgres.log and the Unix socket; removed by close(). */
  dir: string;
  /** The processes of the server while it runs (the postmaster, its children), to check that none outlives close(). */
  pids(): number[];
  /** The server's log (stderr): startup, errors, shutdown. */
  log(): string;
  /** Fast shutdown (SIGINT: clients cut off), SIGKILL after a bound; then, every process gone, removes dir. */
  close(): Promise<void>;
}

/** Where PostgreSQL's `postgres` is (POSTGRES_PATH, else PATH, else /usr/lib/postgresql/<newest>/bin), or undefined. */
export function findPostgres(): string | undefined {
  return findProgram(postgresProgram);
}

/** Whether the suites that need PostgreSQL must skip (absent, not CI), printing once per run how to get it. */
export function skipWithoutPostgres(): boolean {
  return skipWithout(postgresProgram);
}

/** The database startPostgres creates, and the name of the cluster's superuser. */
const databaseName = "test";
const superuser = "postgres";
/** How long initdb, and the server's start, may take; and a fast shutdown before the server is killed. */
const initBound = 60_000;
const startBound = 20_000;
const stopBound = 10_000;

/**
 * A shell that ends the server's process group ($1) and removes its directory ($2) when its stdin reaches end of
 * file, which happens however the test process ends, SIGKILL included; told "exited" first, it just exits. SIGQUIT is
 * PostgreSQL's immediate shutdown, which ends the backends too (they are in process groups of their own) and frees
 * the shared memory; SIGKILL follows if the process started is still alive (not a zombie: /proc) 5 s later.
 */
const watchdogScript = [
  'while read -r line; do [ "$line" = exited ] && exit 0; done',
  'alive() { [ -r "/proc/$1/stat" ] && ! grep -q ") [ZX] " "/proc/$1/stat" 2>/dev/null; }',
  'kill -QUIT "-$1" 2>/dev/null',
  'i=0; while alive "$1" && [ "$i" -lt 50 ]; do sleep 0.1; i=$((i + 1)); done',
  'kill -KILL "-$1" 2>/dev/null; rm -rf "$2"',
].join("\n");

/**
 * Starts a PostgreSQL server of its own and creates an empty database in it. Resolves once that database accepts
 * connections at the returned url; fails with initdb's output or the tail of the server's log.
 */
export async function startPostgres(): Promise<Postgres> {
  const postgres = requireProgram(postgresProgram);
  const initdb = siblingExecutable(postgres, "initdb");
  const dir = mkdtempSync(join(tmpdir(), "postgres-"));
  try {
    const user = runAs();
    if (user) chownSync(dir, user.uid, user.gid);
    const data = join(dir, "data");
    await runInitdb(user, initdb, data);
    // The free port is only probed, so another process can take it before postgres binds it: try again with another.
    for (let attempt = 1; ; attempt++) {
      try {
        return await startOnce(user, postgres, dir, data);
      } catch (error) {
        if (attempt < 3 && error instanceof Error && /Address already in use/.test(error.message)) continue;
        throw error;
      }
    }
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

/** Whom a root process runs PostgreSQL as (it refuses root): `postgres`, and the command prefix that becomes it. */
interface RunAs {
  uid: number;
  gid: number;
  prefix: string[];
}

let runAsUser: RunAs | undefined;
/** For a root process, how to run a command as the `postgres` system user; undefined otherwise (run as we are). */
function runAs(): RunAs | undefined {
  if (process.getuid?.() !== 0) return undefined;
  if (runAsUser) return runAsUser;
  const id = (flag: string) => {
    const out = spawnSync("id", [flag, superuser], { encoding: "utf8" });
    return out.status === 0 ? Number(out.stdout.trim()) : Number.NaN;
  };
  const [uid, gid] = [id("-u"), id("-g")];
  if (!Number.isInteger(uid) || !Number.isInteger(gid))
    throw new Error(
      `PostgreSQL refuses to run as root, and there is no ${superuser} user to run it as (Debian's ${postgresProgram.apt} creates it)`,
    );
  // setpriv execs the command as the user, so the process started is postgres itself; runuser stays as its parent.
  const setpriv = executableIn(["/usr/bin", "/bin"], "setpriv");
  const runuser = executableIn(["/usr/sbin", "/sbin", "/usr/bin"], "runuser");
  const prefix = setpriv
    ? [setpriv, `--reuid=${uid}`, `--regid=${gid}`, "--init-groups", "--"]
    : runuser
      ? [runuser, "-u", superuser, "--"]
      : undefined;
  if (!prefix)
    throw new Error("PostgreSQL refuses to run as root, and neither setpriv nor runuser (util-linux) is here");
  runAsUser = { uid, gid, prefix };
  return runAsUser;
}

/** `command` and `args` as `user` runs them: behind its prefix, or as they are. */
function commandLine(user: RunAs | undefined, command: string, args: string[]): [string, string[]] {
  if (!user) return [command, args];
  const [runner = command, ...rest] = user.prefix;
  return [runner, [...rest, command, ...args]];
}

/** Makes the cluster in `data`: trust for local and 127.0.0.1 connections only, UTF8, locale C, nothing synced. */
async function runInitdb(user: RunAs | undefined, initdb: string, data: string): Promise<void> {
  const args = [
    "--pgdata",
    data,
    "--username",
    superuser,
    "--auth-local=trust",
    "--auth-host=trust",
    "--encoding=UTF8",
    "--locale=C",
    "--no-sync",
    "--no-instructions",
  ];
  try {
    await promisify(execFile)(...commandLine(user, initdb, args), { timeout: initBound });
  } catch (error) {
    const { stdout = "", stderr = "", message } = error as { stdout?: string; stderr?: string; message: string };
    throw new Error(`initdb (${initdb}) failed: ${message}\n${`${stdout}${stderr}`.trim()}`);
  }
  // initdb's pg_hba.conf trusts ::1 and replication connections too; this server trusts local and 127.0.0.1 only.
  const hba = join(data, "pg_hba.conf");
  writeFileSync(hba, "local all all trust\nhost all all 127.0.0.1/32 trust\n");
  if (user) chownSync(hba, user.uid, user.gid);
}

/** A started server, and how to stop it without removing its directory (startPostgres may try another port in it). */
async function startOnce(user: RunAs | undefined, executable: string, dir: string, data: string): Promise<Postgres> {
  const port = await freePort();
  const logPath = join(dir, "postgres.log");
  // The server writes its log straight into the file, so the log stays whole however this process ends.
  const logFd = openSync(logPath, "w");
  if (user) chownSync(logPath, user.uid, user.gid);
  const settings = {
    listen_addresses: "127.0.0.1",
    unix_socket_directories: dir,
    fsync: "off",
    synchronous_commit: "off",
    full_page_writes: "off",
    shared_buffers: "16MB",
    // Dynamic shared memory in files under data/ rather than in /dev/shm, so none of it outlives dir.
    dynamic_shared_memory_type: "mmap",
  };
  const args = ["-D", data, "-p", String(port), ...Object.entries(settings).flatMap(([k, v]) => ["-c", `${k}=${v}`])];
  // Its own process group, which the watchdog and a last SIGKILL address (with runuser, that is in it too).
  const child = spawn(...commandLine(user, executable, args), { stdio: ["ignore", logFd, logFd], detached: true });
  closeSync(logFd);
  const pid = child.pid;
  const exited = new Promise<string>((resolve) => {
    child.once("exit", (code, signal) => resolve(signal ? `signal ${signal}` : `code ${code}`));
    child.once("error", (error) => resolve(error.message));
  });
  if (pid === undefined) throw new Error(`postgres (${executable}) did not start: ${await exited}`);
  let running = true;
  // Detached too, so the terminal's Ctrl-C, which ends the test process, leaves it to clean up after it.
  const watchdog = spawn("sh", ["-c", watchdogScript, "postgres-watchdog", String(pid), dir], {
    stdio: ["pipe", "ignore", "ignore"],
    detached: true,
  });
  watchdog.on("error", () => undefined);
  void exited.then(() => {
    running = false;
    watchdog.stdin?.end("exited\n");
  });

  const log = () => readText(logPath);
  const pids = () => (running ? descendants(pid) : []);
  let stopping: Promise<void> | undefined;
  /** Fast shutdown, SIGKILL after stopBound; resolves once none of the server's processes is left. */
  const stop = () =>
    (stopping ??= (async () => {
      const seen = pids();
      if (running) {
        // The postmaster: the process started, or runuser's child; its pid file names it.
        const postmaster = Number(readText(join(data, "postmaster.pid")).split("\n")[0]) || pid;
        signal(postmaster, "SIGINT");
        const timer = setTimeout(() => signal(-pid, "SIGKILL"), stopBound);
        await exited;
        clearTimeout(timer);
      }
      // The postmaster waits for its children before it exits; after a SIGKILL they notice it is gone and follow.
      for (const deadline = Date.now() + stopBound; Date.now() < deadline && seen.some(isRunning); ) await sleep(20);
    })());

  let client: Client;
  try {
    client = await connectWhenReady(`postgres://${superuser}@127.0.0.1:${port}/postgres`, exited);
  } catch (error) {
    await stop();
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`postgres on 127.0.0.1:${port} ${reason}; the end of its log:\n${tail(log(), 20)}`);
  }
  try {
    await client.query(`CREATE DATABASE ${databaseName}`);
  } catch (error) {
    await stop();
    throw error;
  } finally {
    await client.end().catch(() => undefined);
  }

  return {
    url: `postgres://${superuser}@127.0.0.1:${port}/${databaseName}`,
    port,
    database: databaseName,
    dir,
    pids,
    log,
    close: async () => {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A client connected to `url` once the server accepts connections; fails when it has `exited` or after startBound. */
async function connectWhenReady(url: string, exited: Promise<string>): Promise<Client> {
  let ended: string | undefined;
  void exited.then((how) => (ended = how));
  let last = "";
  for (const deadline = Date.now() + startBound; ; ) {
    if (ended !== undefined) throw new Error(`exited (${ended}) before accepting connections`);
    if (Date.now() > deadline) throw new Error(`did not accept connections within ${startBound} ms (${last})`);
    const client = new Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
    client.on("error", () => undefined);
    try {
      await client.connect();
      return client;
    } catch (error) {
      // Refused before it listens; "the database system is starting up" until it has recovered.
      last = error instanceof Error ? error.message : String(error);
      await client.end().catch(() => undefined);
    }
    await sleep(50);
  }
}

/** `pid` and its descendants that are alive (PostgreSQL's backends are in process groups of their own). */
function descendants(pid: number): number[] {
  if (!isRunning(pid)) return [];
  return [pid, ...childrenOf(pid).flatMap(descendants)];
}

/** The executable `name` beside `executable`, or beside what it links to (/usr/local/bin/postgres → …/15/bin). */
function siblingExecutable(executable: string, name: string): string {
  const beside = executableIn([dirname(executable)], name);
  if (beside) return beside;
  let resolved = executable;
  try {
    resolved = realpathSync(executable);
  } catch {
    // launching it will say what is wrong
  }
  return executableIn([dirname(resolved)], name) ?? join(dirname(executable), name);
}

/** The first of `dirs`/`name` that is executable. */
function executableIn(dirs: string[], name: string): string | undefined {
  for (const dir of dirs) {
    try {
      accessSync(join(dir, name), constants.X_OK);
      return join(dir, name);
    } catch {
      // not here
    }
  }
  return undefined;
}

/** Sends `name` to `pid` (a group when negative), if it still exists. */
function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // gone already
  }
}

/** The last `lines` lines of `text`. */
function tail(text: string, lines: number): string {
  return text.trimEnd().split("\n").slice(-lines).join("\n");
}

function readText(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return "";
  }
}
