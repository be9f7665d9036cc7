/**
 * A real PostgreSQL server (Debian's postgresql) for suites that run against one: each is its own cluster, made by
 * initdb in a fresh temporary directory (data, log and Unix socket), listening on a free 127.0.0.1 port with trust
 * authentication and durability off, so it touches nothing of the system's clusters. Suites skip without PostgreSQL
 * (`describe.skipIf(skipWithoutPostgres())`), except under CI, where startPostgres fails with how to get it.
 *
 * PostgreSQL refuses to run as root: a root test process runs initdb and postgres as the `postgres` system user
 * (Debian's package creates it) through util-linux's setpriv, else runuser, and gives that user the directory. A
 * suite may stop the server (fast or immediate) and start it again on the same data and port (postgres-process.ts).
 */
import { execFile, spawnSync } from "node:child_process";
import { accessSync, chownSync, constants, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { freePort } from "./listen-local.js";
import { connectWhenReady, type PostgresProcess, readText, runPostgres, type StopMode } from "./postgres-process.js";
import { findProgram, postgresProgram, requireProgram, skipWithout } from "./system.js";

export type { StopMode } from "./postgres-process.js";

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
  /**
   * Stops the server, keeping its data: `fast` (default; pg_ctl -m fast: transactions rolled back, clients cut
   * off) or `immediate` (pg_ctl -m immediate: every process ends at once, as a crash). Resolves once none is left.
   */
  stop(mode?: StopMode): Promise<void>;
  /** Starts the stopped server again, on the same data and port; resolves once it accepts connections. */
  start(): Promise<void>;
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
/** How long initdb, and the server's start, may take. */
const initBound = 60_000;
const startBound = 20_000;

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
  const command = commandLine(user, executable, args);
  const log = () => readText(logPath);
  const adminUrl = `postgres://${superuser}@127.0.0.1:${port}/postgres`;
  let server: PostgresProcess;
  /** Runs the server; resolves with a client of it once it accepts connections, or fails with its log's end. */
  const run = async (append: boolean) => {
    server = runPostgres({ command, dir, data, logPath, append, owner: user });
    try {
      return await connectWhenReady(adminUrl, server.exited, startBound);
    } catch (error) {
      await server.stop("fast");
      const reason = error instanceof Error ? error.message : String(error);
      throw new Error(`postgres on 127.0.0.1:${port} ${reason}; the end of its log:\n${tail(log(), 20)}`);
    }
  };

  const client = await run(false);
  try {
    await client.query(`CREATE DATABASE ${databaseName}`);
  } catch (error) {
    await server!.stop("fast");
    throw error;
  } finally {
    await client.end().catch(() => undefined);
  }

  return {
    url: `postgres://${superuser}@127.0.0.1:${port}/${databaseName}`,
    port,
    database: databaseName,
    dir,
    pids: () => server.pids(),
    log,
    stop: (mode = "fast") => server.stop(mode),
    start: async () => {
      if (server.pids().length > 0) throw new Error("start(): the server is running; stop() it first");
      await (await run(true)).end();
    },
    close: async () => {
      await server.stop("fast");
      rmSync(dir, { recursive: true, force: true });
    },
  };
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

/** The last `lines` lines of `text`. */
function tail(text: string, lines: number): string {
  return text.trimEnd().split("\n").slice(-lines).join("\n");
}
