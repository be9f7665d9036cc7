/**
 * One run of a PostgreSQL server (postgres.ts makes the cluster and starts it, and may start it again on the same
 * data after a stop): the process, its log, a watchdog that ends it however the test process ends, and its stop,
 * fast (pg_ctl -m fast: SIGINT) or immediate (-m immediate: SIGQUIT, as a crash, recovered at the next start).
 */
import { spawn } from "node:child_process";
import { chownSync, closeSync, openSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { Client } from "pg";
import { childrenOf, isRunning } from "./processes.js";

/** How PostgreSQL stops: `fast` rolls back and cuts off its clients; `immediate` ends every process at once. */
export type StopMode = "fast" | "immediate";

/** A running server. */
export interface PostgresProcess {
  /** Resolves with how the process started ended (`code 0`, `signal SIGKILL`). */
  exited: Promise<string>;
  /** Its processes while it runs (the postmaster, its children). */
  pids(): number[];
  /** Stops it (SIGKILL after a bound); resolves once none of its processes is left. Once: later calls wait for it. */
  stop(mode: StopMode): Promise<void>;
}

/** Where a run keeps its things, and how to start it. */
export interface RunOptions {
  /** The command line that runs postgres (behind setpriv or runuser for a root test process). */
  command: [string, string[]];
  /** The temporary directory of the cluster: the watchdog removes it if the test process ends first. */
  dir: string;
  /** The data directory (its postmaster.pid names the postmaster). */
  data: string;
  /** The log file: made for the first run, appended to by later ones. */
  logPath: string;
  append: boolean;
  /** Whom to give a new log file to (postgres writes it). */
  owner: { uid: number; gid: number } | undefined;
}

/** How long a stop may take before the server is killed. */
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

/** Starts the server; it is ready once connectWhenReady connects. */
export function runPostgres({ command, dir, data, logPath, append, owner }: RunOptions): PostgresProcess {
  // The server writes its log straight into the file, so the log stays whole however this process ends.
  const logFd = openSync(logPath, append ? "a" : "w");
  if (owner && !append) chownSync(logPath, owner.uid, owner.gid);
  // Its own process group, which the watchdog and a last SIGKILL address (with runuser, that is in it too).
  const child = spawn(...command, { stdio: ["ignore", logFd, logFd], detached: true });
  closeSync(logFd);
  const pid = child.pid;
  const exited = new Promise<string>((resolve) => {
    child.once("exit", (code, signal) => resolve(signal ? `signal ${signal}` : `code ${code}`));
    child.once("error", (error) => resolve(error.message));
  });
  if (pid === undefined) return { exited, pids: () => [], stop: async () => {} };
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

  const pids = () => (running ? descendants(pid) : []);
  let stopping: Promise<void> | undefined;
  const stop = (mode: StopMode) =>
    (stopping ??= (async () => {
      const seen = pids();
      if (running) {
        // The postmaster: the process started, or runuser's child; its pid file names it.
        const postmaster = Number(readText(join(data, "postmaster.pid")).split("\n")[0]) || pid;
        signal(postmaster, mode === "fast" ? "SIGINT" : "SIGQUIT");
        const timer = setTimeout(() => signal(-pid, "SIGKILL"), stopBound);
        await exited;
        clearTimeout(timer);
      }
      // The postmaster waits for its children before it exits; after a SIGKILL they notice it is gone and follow.
      for (const deadline = Date.now() + stopBound; Date.now() < deadline && seen.some(isRunning); ) await sleep(20);
    })());
  return { exited, pids, stop };
}

/** A client connected to `url` once the server accepts connections; fails when it has `exited` or after `bound` ms. */
export async function connectWhenReady(url: string, exited: Promise<string>, bound: number): Promise<Client> {
  let ended: string | undefined;
  void exited.then((how) => (ended = how));
  let last = "";
  for (const deadline = Date.now() + bound; ; ) {
    if (ended !== undefined) throw new Error(`exited (${ended}) before accepting connections`);
    if (Date.now() > deadline) throw new Error(`did not accept connections within ${bound} ms (${last})`);
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

/** Sends `name` to `pid` (a group when negative), if it still exists. */
function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // gone already
  }
}

/** A file's text, or "" when it cannot be read. */
export function readText(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return "";
  }
}
