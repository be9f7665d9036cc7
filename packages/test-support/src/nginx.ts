/**
 * A real nginx (Debian's nginx-light) for tests that put one in front of Node servers, as a reverse proxy or a load
 * balancer: each is its own master and worker on a free 127.0.0.1 port, with its config, logs, pid file and temp
 * directories in a fresh prefix, so it touches nothing of the system's nginx. Suites skip without nginx
 * (`describe.skipIf(skipWithoutNginx())`), except under CI, where startNginx fails with how to get it.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createConnection } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { freePort } from "./listen-local.js";
import { childrenOf, groupAlive, killGroup } from "./processes.js";
import { findProgram, nginxProgram, requireProgram, skipWithout } from "./system.js";

/** A running nginx started by startNginx. */
export interface Nginx {
  /** The port it listens on, on 127.0.0.1. */
  port: number;
  /** `http://127.0.0.1:<port>`. */
  url: string;
  /** Its prefix directory: nginx.conf, error.log, access.log, nginx.pid and the temp directories. */
  prefix: string;
  /** The master's and its children's process ids while they run, to check that none outlives stop(). */
  pids(): number[];
  /** The error log's text. */
  errorLog(): string;
  /** The access log's text. */
  accessLog(): string;
  /** Graceful stop (SIGQUIT), then SIGKILL after a bound; resolves when the master and its workers have exited. */
  stop(): Promise<void>;
}

/** Where nginx is (NGINX_PATH, else `nginx` on PATH or in /usr/sbin), or undefined. */
export function findNginx(): string | undefined {
  return findProgram(nginxProgram);
}

/** Whether the suites that need nginx must skip (absent, not CI), printing once per run how to get it. */
export function skipWithoutNginx(): boolean {
  return skipWithout(nginxProgram);
}

/** How long nginx may take to listen, and a graceful stop to finish, before it is killed. */
const startBound = 30_000;
const stopBound = 5_000;

/**
 * The nginx masters running and the prefixes not yet removed, for the 'exit' hook. vitest ends its workers with
 * SIGTERM, which runs no 'exit' hook, so each nginx also has a watchdog (below) that outlives such an end.
 */
const running = new Set<ChildProcess>();
const prefixes = new Set<string>();
process.on("exit", () => {
  for (const child of running) if (child.pid !== undefined) killGroup(child.pid);
  for (const prefix of prefixes) rmSync(prefix, { recursive: true, force: true });
});

/**
 * A shell that SIGKILLs nginx's process group ($1) and removes its prefix ($2) when its stdin reaches end of file,
 * which happens however the test process ends, SIGKILL included; told "exited" first, it just exits.
 */
const watchdogScript =
  'while read -r line; do [ "$line" = exited ] && exit 0; done; kill -KILL "-$1" 2>/dev/null; rm -rf "$2"';

/**
 * Starts nginx with `http` as the body of its http {} block; `http(port)` receives the port nginx must listen on
 * (`listen 127.0.0.1:${port};`). Resolves once the port accepts connections; fails with nginx's own messages.
 */
export async function startNginx(http: (port: number) => string): Promise<Nginx> {
  const executable = requireProgram(nginxProgram);
  // The free port is only probed, so another process can take it before nginx binds it: try again with another.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(executable, http);
    } catch (error) {
      if (attempt < 3 && error instanceof Error && /Address already in use/.test(error.message)) continue;
      throw error;
    }
  }
}

async function startOnce(executable: string, http: (port: number) => string): Promise<Nginx> {
  const prefix = mkdtempSync(join(tmpdir(), "nginx-"));
  prefixes.add(prefix);
  const port = await freePort();
  const errorPath = join(prefix, "error.log");
  const confPath = join(prefix, "nginx.conf");
  writeFileSync(confPath, config(executable, prefix, http(port)));
  // Its own process group, so one signal reaches the master and its workers: a worker outlives a master killed alone.
  const child = spawn(executable, ["-p", `${prefix}/`, "-c", confPath, "-e", errorPath], {
    stdio: ["ignore", "ignore", "pipe"],
    detached: true,
  });
  let stderr = "";
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => (stderr = (stderr + chunk).slice(-10_000)));
  const pid = child.pid;
  const exited = new Promise<string>((resolve) => {
    child.once("exit", (code, signal) => resolve(signal ? `signal ${signal}` : `code ${code}`));
    child.once("error", (error) => resolve(error.message));
  });
  if (pid === undefined) {
    rmSync(prefix, { recursive: true, force: true });
    prefixes.delete(prefix);
    throw new Error(`nginx (${executable}) did not start: ${await exited}`);
  }
  running.add(child);
  // Detached too, so the terminal's Ctrl-C, which ends the test process, leaves it to clean up after it.
  const watchdog = spawn("sh", ["-c", watchdogScript, "nginx-watchdog", String(pid), prefix], {
    stdio: ["pipe", "ignore", "ignore"],
    detached: true,
  });
  watchdog.on("error", () => undefined);
  void exited.then(() => {
    running.delete(child);
    watchdog.stdin?.end("exited\n");
  });

  const read = (name: string) => readText(join(prefix, name));
  /** What nginx said: its error log, the lines of stderr the log lacks, and the config line a message points at. */
  const messages = () => {
    const log = read("error.log").trim();
    const said = [
      log,
      ...stderr
        .trim()
        .split("\n")
        .filter((l) => l && !log.includes(l.replace(/^nginx: \[\w+\] /, ""))),
    ];
    const line = Number(/nginx\.conf:(\d+)/.exec(said.join("\n"))?.[1]);
    if (line) said.push(`nginx.conf line ${line}: ${read("nginx.conf").split("\n")[line - 1]?.trim() ?? ""}`);
    return said.filter(Boolean).join("\n");
  };
  let logs: { error: string; access: string } | undefined;
  const stop = async () => {
    if (logs) return;
    if (running.has(child)) {
      child.kill("SIGQUIT");
      const timer = setTimeout(() => killGroup(pid), stopBound);
      await exited;
      clearTimeout(timer);
      // A graceful stop ends the workers before the master; after a SIGKILL they may take a moment longer.
      for (const deadline = Date.now() + 1_000; Date.now() < deadline && groupAlive(pid); ) await sleep(20);
    }
    // The logs are kept for errorLog() and accessLog(); the prefix goes.
    logs = { error: read("error.log"), access: read("access.log") };
    rmSync(prefix, { recursive: true, force: true });
    prefixes.delete(prefix);
  };

  // nginx writes its pid file after it has bound its sockets, so a connection that succeeds then is nginx's.
  const deadline = Date.now() + startBound;
  for (;;) {
    const ended = await Promise.race([exited, sleep(25, undefined)]);
    let failure: string | undefined;
    if (ended !== undefined) failure = `exited (${ended}) before listening on 127.0.0.1:${port}`;
    else if (read("nginx.pid") && (await accepts(port))) break;
    else if (Date.now() > deadline) failure = `was not listening on 127.0.0.1:${port} after ${startBound} ms`;
    if (failure !== undefined) {
      const error = new Error(`nginx ${failure}:\n${messages()}`);
      await stop();
      throw error;
    }
  }

  return {
    port,
    url: `http://127.0.0.1:${port}`,
    prefix,
    pids: () => (running.has(child) ? [pid, ...childrenOf(pid)] : []),
    errorLog: () => logs?.error ?? read("error.log"),
    accessLog: () => logs?.access ?? read("access.log"),
    stop,
  };
}

/** The whole nginx.conf: everything nginx writes goes into `prefix`, and `http` is the http {} block's body. */
function config(executable: string, prefix: string, http: string): string {
  const path = (name: string) => JSON.stringify(join(prefix, name));
  // A module compiled in opens its default temp path (/var/lib/nginx/…) unless told otherwise; one left out has no directive.
  const temps = [
    "client_body",
    "proxy",
    ...["fastcgi", "uwsgi", "scgi"].filter(
      (m) => !configureArguments(executable).includes(`--without-http_${m}_module`),
    ),
  ];
  return [
    "# Written by @compute-api/test-support/nginx: one test's nginx, everything it writes in this prefix.",
    "daemon off;",
    "worker_processes 1;",
    // As root the workers would run as nobody, who cannot use this root-owned prefix's temp directories.
    ...(process.getuid?.() === 0 ? ["user root;"] : []),
    `pid ${path("nginx.pid")};`,
    `error_log ${path("error.log")} info;`,
    "events { worker_connections 1024; }",
    "http {",
    `  access_log ${path("access.log")};`,
    ...temps.map((t) => `  ${t}_temp_path ${path(`${t}_temp`)};`),
    http,
    "}",
    "",
  ].join("\n");
}

const builds = new Map<string, string>();
/** The configure arguments `executable` was built with (`nginx -V`, which prints them to stderr), read once. */
function configureArguments(executable: string): string {
  let build = builds.get(executable);
  if (build === undefined) {
    const result = spawnSync(executable, ["-V"], { encoding: "utf8", timeout: 10_000 });
    build = `${result.stdout ?? ""}${result.stderr ?? ""}`;
    builds.set(executable, build);
  }
  return build;
}

function readText(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return "";
  }
}

/** Whether 127.0.0.1:`port` accepts a connection now. */
function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: "127.0.0.1", port });
    socket.setTimeout(1_000);
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.once("connect", () => done(true));
    socket.once("error", () => done(false));
    socket.once("timeout", () => done(false));
  });
}
