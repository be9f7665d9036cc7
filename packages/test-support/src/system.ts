/**
 * Programs the tests take from the system because the npm registry has none (Chromium, nginx, PostgreSQL, podman with
 * runc and debootstrap): where each is, and a way for a suite to skip when one it needs is absent. A developer's
 * machine without one skips the suites that need it, with one line per run saying how to get it; CI (CI set) never
 * skips, so a missing program fails there. What the registry has (Node.js binaries) is fetched: node-binary.ts.
 */
import { accessSync, constants, mkdirSync, readdirSync, unlinkSync, writeFileSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { isMainThread } from "node:worker_threads";

/** A program some suites need from the system, and how to get it. */
export interface SystemProgram {
  /** Its name in messages, e.g. "Chromium". */
  readonly name: string;
  /** The environment variable that names its executable; set, it wins over any search. None: the search alone. */
  readonly env?: string;
  /** Executable names to look for in PATH's directories, in order. */
  readonly commands: readonly string[];
  /** Directories searched after PATH, for those a non-root PATH lacks (nginx is in /usr/sbin). */
  readonly dirs: readonly string[];
  /** The Debian package that provides it. */
  readonly apt: string;
  /** The suites that need it, as the skip line names them. */
  readonly suites: string;
}

/** Chromium, which playwright-core drives (it downloads no browser of its own). */
export const chromiumProgram: SystemProgram = {
  name: "Chromium",
  env: "CHROMIUM_PATH",
  commands: ["chromium", "chromium-browser"],
  dirs: ["/usr/bin", "/usr/local/bin"],
  apt: "chromium",
  suites:
    'the browser suites (packages/gateway/test/cors.test.ts "a web front end in Chromium", packages/stub-server/test/docs.test.ts)',
};

/** nginx, as a real reverse proxy and load balancer in front of Node servers (nginx.ts). */
export const nginxProgram: SystemProgram = {
  name: "nginx",
  env: "NGINX_PATH",
  commands: ["nginx"],
  dirs: ["/usr/sbin", "/usr/local/sbin", "/usr/local/nginx/sbin"],
  apt: "nginx-light",
  suites: "the suites that start a real nginx (test/system, test/production)",
};

/**
 * PostgreSQL's server, `postgres`, for the suites that run against a real one (postgres.ts); `initdb` is
 * taken from the same directory. Debian keeps both out of PATH, in /usr/lib/postgresql/<major>/bin: the newest wins.
 */
export const postgresProgram: SystemProgram = {
  name: "PostgreSQL",
  env: "POSTGRES_PATH",
  commands: ["postgres"],
  dirs: [...debianPostgresDirs(), "/usr/local/pgsql/bin"],
  apt: "postgresql",
  suites: "the suites that run against a real PostgreSQL server (test/system/postgres.test.ts, examples/postgres)",
};

/** The suites that need podman, runc and debootstrap, as the skip line names them. */
const containerSuites = "the container and Kubernetes suites (test/containers, deploy/kubernetes)";

/**
 * podman, which builds and runs the images (test/containers, deploy/kubernetes's `podman kube play`); looked for in
 * PATH alone, as `npm run images` looks for it.
 */
export const podmanProgram: SystemProgram = {
  name: "podman",
  env: "PODMAN_PATH",
  commands: ["podman"],
  dirs: [],
  apt: "podman",
  suites: containerSuites,
};

/**
 * runc, podman's runtime here (deploy/images/containers.conf), which podman looks for in PATH and in these
 * directories; podman takes no path from us, so there is no variable to set.
 */
export const runcProgram: SystemProgram = {
  name: "runc",
  commands: ["runc"],
  dirs: ["/usr/bin", "/usr/sbin", "/usr/local/bin", "/usr/local/sbin", "/usr/lib/cri-o-runc/sbin"],
  apt: "runc",
  suites: containerSuites,
};

/** debootstrap, which makes the Debian root filesystem of the container suites' base image (podman-images.ts). */
export const debootstrapProgram: SystemProgram = {
  name: "debootstrap",
  env: "DEBOOTSTRAP_PATH",
  commands: ["debootstrap"],
  dirs: ["/usr/sbin", "/usr/bin"],
  apt: "debootstrap",
  suites: containerSuites,
};

/** /usr/lib/postgresql/<major>/bin of each major version installed the Debian way, newest first. */
function debianPostgresDirs(): string[] {
  let majors: string[];
  try {
    majors = readdirSync("/usr/lib/postgresql").filter((name) => /^\d+$/.test(name));
  } catch {
    return [];
  }
  return majors.sort((a, b) => Number(b) - Number(a)).map((major) => `/usr/lib/postgresql/${major}/bin`);
}

/** Where `program` is: its environment variable, else the first of its commands in PATH, else in its usual directories. */
export function findProgram(program: SystemProgram): string | undefined {
  const given = program.env === undefined ? undefined : process.env[program.env];
  // An explicit path is trusted as it is: if it is wrong, launching it fails loudly instead of skipping.
  if (given) return given;
  const dirs = [...(process.env.PATH ?? "").split(delimiter).filter(Boolean), ...program.dirs];
  for (const dir of dirs) {
    for (const name of program.commands) {
      const path = join(dir, name);
      try {
        accessSync(path, constants.X_OK);
        return path;
      } catch {
        // not here
      }
    }
  }
  return undefined;
}

/**
 * The one-line message for `programs` missing (programs the same suites need): which suites cannot run and how to
 * get them.
 */
export function missingMessage(...programs: readonly SystemProgram[]): string {
  const names = programs.map((program) => program.name);
  const named = names.length === 1 ? names.join("") : `${names.slice(0, -1).join(", ")} and ${names.at(-1)}`;
  const envs = programs.flatMap((program) => (program.env === undefined ? [] : [program.env]));
  const set =
    envs.length === 0 ? "" : `, or set ${envs.join(", ")} to ${envs.length === 1 ? "its" : "their"} executable`;
  const install = `apt-get install ${programs.map((program) => program.apt).join(" ")}`;
  return `${named} not found, so ${programs[0]?.suites ?? "no suite"} cannot run: ${install}${set}`;
}

/** `program`'s executable; absent, an error with missingMessage. */
export function requireProgram(program: SystemProgram): string {
  const path = findProgram(program);
  if (path === undefined) throw new Error(missingMessage(program));
  return path;
}

/** Whether this run is CI's, which must run every suite: CI set to anything but "", "0" or "false". */
export function inCi(): boolean {
  const ci = process.env.CI;
  return ci !== undefined && !["", "0", "false"].includes(ci.toLowerCase());
}

/**
 * Whether the suites that need `programs` must skip, for describe.skipIf: true when one is absent and this is not CI,
 * after printing missingMessage of the absent ones once per run. Under CI it is false, and the suite's own launch
 * fails with that message.
 */
export function skipWithout(...programs: readonly SystemProgram[]): boolean {
  const missing = programs.filter((program) => findProgram(program) === undefined);
  if (missing.length === 0 || inCi()) return false;
  if (firstInRun(missing)) writeSync(2, `skipped: ${missingMessage(...missing)}\n`);
  return true;
}

/**
 * Whether this test file is the run's first to find `missing` absent. Each file runs in its own worker, so the
 * workers agree through a marker file per vitest process (the forks' parent, or the process that owns the threads).
 */
function firstInRun(missing: readonly SystemProgram[]): boolean {
  const dir = join(tmpdir(), "compute-api-missing-programs");
  mkdirSync(dir, { recursive: true });
  const run = isMainThread ? process.ppid : process.pid;
  // Markers of runs that have ended would silence a later run given the same pid: drop them first.
  for (const name of readdirSync(dir)) {
    const pid = Number(name.split(".")[0]);
    if (pid !== run && !alive(pid)) {
      try {
        unlinkSync(join(dir, name));
      } catch {
        // another worker dropped it
      }
    }
  }
  try {
    const names = missing.map((program) => program.name.replace(/[^\w-]/g, "")).join("+");
    writeFileSync(join(dir, `${run}.${names}`), "", { flag: "wx" });
    return true;
  } catch {
    return false;
  }
}

function alive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
