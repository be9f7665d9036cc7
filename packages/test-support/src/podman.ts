/**
 * podman for the container suites (test/containers): a runner with the project's settings (deploy/images/
 * containers.conf through CONTAINERS_CONF: runc, default ulimits this machine accepts, host networking), the tests'
 * own Node.js 24 base image, built here because no image registry is reachable (a Debian bookworm root filesystem
 * from debootstrap, imported with `podman import`, plus the `node24` binary and the host's npm; podman's image store
 * keeps it between runs), and the project's images built as `npm run images` builds them, on that base.
 * Suites skip without podman (`describe.skipIf(skipWithoutPodman())`), except under CI.
 */
import { execFile, spawn } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { get } from "node:http";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { type BuiltImage, buildImages as buildProjectImages, podmanEnv } from "../../../scripts/images.js";
import { freePort } from "./listen-local.js";
import { isRunning } from "./processes.js";
import { node24Program, podmanProgram, requireProgram, type SystemProgram, skipWithout } from "./system.js";

export type { BuiltImage } from "../../../scripts/images.js";

/** The tests' Node.js 24 base image: Debian bookworm (minbase) with node at /usr/local/bin/node and npm. */
export const baseImage = "localhost/compute-api/node:24-test";
/** The Debian root filesystem under it, kept apart so that a new Node binary does not run debootstrap again. */
const debianImage = "localhost/compute-api/debian:bookworm-minbase";
const debianMirror = "http://deb.debian.org/debian";
/** The label of baseImage that names the Node version in it (`v24.21.0`): another node24 rebuilds it. */
const nodeVersionLabel = "compute-api.node-version";

/** debootstrap, which makes the base image's Debian root filesystem. */
const debootstrapProgram: SystemProgram = {
  name: "debootstrap",
  env: "DEBOOTSTRAP_PATH",
  commands: ["debootstrap"],
  dirs: ["/usr/sbin", "/usr/bin"],
  apt: "debootstrap",
  suites: podmanProgram.suites,
};
/** The npm that runs on the host, which the base image gets a copy of (the images' build stage runs npm ci). */
const npmProgram: SystemProgram = {
  name: "npm",
  env: "NPM_PATH",
  commands: ["npm"],
  dirs: ["/usr/bin", "/usr/local/bin"],
  apt: "npm",
  suites: podmanProgram.suites,
};

/** How long a building step may take: debootstrap, an image build (cold: the npm install), and any other command. */
const debootstrapBound = 10 * 60_000;
const buildBound = 15 * 60_000;
const commandBound = 2 * 60_000;

/** Whether the suites that need podman must skip (absent, not CI), printing once per run how to get it. */
export function skipWithoutPodman(): boolean {
  return skipWithout(podmanProgram);
}

/** What a podman command printed, and its exit status. */
export interface PodmanResult {
  stdout: string;
  stderr: string;
  code: number;
}

/** Options of podman(). */
export interface PodmanOptions {
  /** Bound in ms, then SIGKILL (default: 2 minutes). */
  timeoutMs?: number;
  /** Resolve with a non-zero status instead of rejecting. */
  allowFailure?: boolean;
  /** Written to its standard input. */
  input?: string;
}

/** Runs `podman <args>` with the project's containers.conf; rejects on a non-zero status with its stderr. */
export function podman(args: readonly string[], options: PodmanOptions = {}): Promise<PodmanResult> {
  const path = requireProgram(podmanProgram);
  return new Promise((resolve, reject) => {
    const child = spawn(path, args, { env: podmanEnv(), stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk;
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk;
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? commandBound);
    child.once("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once("close", (code, signal) => {
      clearTimeout(timer);
      const status = code ?? 128;
      if (status === 0 || options.allowFailure) resolve({ stdout, stderr, code: status });
      else reject(new Error(`podman ${args.join(" ")} failed (${signal ?? code}): ${stderr.trim().slice(-2000)}`));
    });
    child.stdin.end(options.input ?? "");
  });
}

/** Whether `image` is in podman's store. */
async function imageExists(image: string): Promise<boolean> {
  return (await podman(["image", "exists", image], { allowFailure: true })).code === 0;
}

/**
 * The tests' base image, built when podman's store lacks it or holds it with another Node version (saying so in one
 * line on stderr); resolves with its name. One process at a time builds it: the others wait for it.
 */
export async function ensureBaseImage(): Promise<string> {
  const node = realpathSync(requireProgram(node24Program));
  const version = (await promisify(execFile)(node, ["--version"])).stdout.trim();
  return withBuildLock(async () => {
    const inspected = await podman(
      ["image", "inspect", "--format", `{{index .Labels "${nodeVersionLabel}"}}`, baseImage],
      {
        allowFailure: true,
      },
    );
    if (inspected.code === 0 && inspected.stdout.trim() === version) return baseImage;
    process.stderr.write(
      `building the tests' base image ${baseImage} (Debian bookworm by debootstrap, Node ${version}; once, podman keeps it)\n`,
    );
    if (!(await imageExists(debianImage))) await importDebian();
    const context = mkdtempSync(join(tmpdir(), "compute-api-node-image-"));
    try {
      cpSync(node, join(context, "node"));
      cpSync(npmDir(), join(context, "npm"), { recursive: true });
      writeFileSync(
        join(context, "Containerfile"),
        [
          `FROM ${debianImage}`,
          "COPY node /usr/local/bin/node",
          "COPY npm /usr/local/lib/node_modules/npm",
          "RUN ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm" +
            " && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx && node --version && npm --version",
          `LABEL ${nodeVersionLabel}="${version}"`,
          'CMD ["node"]',
          "",
        ].join("\n"),
      );
      await podman(["build", "--network", "host", "-t", baseImage, context], { timeoutMs: buildBound });
    } finally {
      rmSync(context, { recursive: true, force: true });
    }
    return baseImage;
  });
}

/**
 * The project's three images, built as `npm run images` builds them (scripts/images.ts) on the tests' base image,
 * each only when what it is built from changed since its last build (saying so in one line on stderr).
 */
export async function buildImages(): Promise<BuiltImage[]> {
  const nodeImage = await ensureBaseImage();
  const path = requireProgram(podmanProgram);
  return withBuildLock(async () => {
    let output = "";
    try {
      return await buildProjectImages({
        nodeImage,
        engine: { name: "podman", path, env: podmanEnv() },
        output: (chunk) => {
          output = (output + chunk).slice(-20_000);
        },
        signal: AbortSignal.timeout(buildBound),
        onBuild: (tag) =>
          process.stderr.write(`building ${tag} (what it is built from changed since its last build)\n`),
      });
    } catch (error) {
      throw new Error(`${(error as Error).message}\n--- podman build's output (end):\n${output.slice(-6000)}`);
    }
  });
}

/** Debian bookworm's minimal root filesystem, by debootstrap, without apt's caches and lists, docs or locales. */
async function importDebian(): Promise<void> {
  const debootstrap = requireProgram(debootstrapProgram);
  const dir = mkdtempSync(join(tmpdir(), "compute-api-debootstrap-"));
  const rootfs = join(dir, "rootfs");
  try {
    await promisify(execFile)(debootstrap, ["--variant=minbase", "bookworm", rootfs, debianMirror], {
      timeout: debootstrapBound,
      maxBuffer: 64 * 1024 * 1024,
    });
    for (const path of [
      "var/cache/apt",
      "var/lib/apt/lists",
      "usr/share/doc",
      "usr/share/man",
      "usr/share/info",
      "usr/share/locale",
    ]) {
      rmSync(join(rootfs, path), { recursive: true, force: true });
    }
    await promisify(execFile)(
      "sh",
      [
        "-c",
        `tar -C "$1" -c . | "$2" import --change 'CMD ["/bin/bash"]' - "$3"`,
        "sh",
        rootfs,
        requireProgram(podmanProgram),
        debianImage,
      ],
      {
        env: podmanEnv(),
        timeout: commandBound,
        maxBuffer: 64 * 1024 * 1024,
      },
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The folder of the npm that runs on the host (…/node_modules/npm), copied into the base image. */
function npmDir(): string {
  const npm = requireProgram(npmProgram);
  // …/npm/bin/npm-cli.js, which the `npm` on PATH links to.
  return dirname(dirname(realpathSync(npm)));
}

/**
 * Runs `build` while holding the machine-wide lock of the tests' image builds (a file in the temporary directory
 * with the holder's pid; a dead holder's lock is taken over), so that suites running at once build each image once.
 */
async function withBuildLock<T>(build: () => Promise<T>): Promise<T> {
  const lock = join(tmpdir(), "compute-api-image-build.lock");
  const deadline = Date.now() + buildBound + debootstrapBound;
  for (;;) {
    try {
      writeFileSync(lock, `${process.pid}\n`, { flag: "wx" });
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    let holder = "";
    try {
      holder = readFileSync(lock, "utf8").trim();
    } catch {
      continue;
    }
    // An empty file is a lock being written, not a dead holder's.
    if (holder !== "" && !isRunning(Number(holder))) {
      rmSync(lock, { force: true });
      continue;
    }
    if (Date.now() > deadline) throw new Error(`waited too long for the image build of process ${holder} (${lock})`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  try {
    return await build();
  } finally {
    rmSync(lock, { force: true });
  }
}

/** A container a suite started with startContainer. */
export interface Container {
  /** Its name (unique to this start). */
  readonly name: string;
  /** `http://127.0.0.1:<port>`: it listens on the host's loopback (host networking). */
  readonly url: string;
  readonly port: number;
  /** What it printed so far (stdout and stderr). */
  logs(): Promise<string>;
  /** Runs a command in it (`podman exec`). */
  exec(command: readonly string[]): Promise<PodmanResult>;
  /**
   * `podman stop --time <seconds>`: SIGTERM, then SIGKILL once that many seconds pass. Resolves with its exit status
   * and the time from the stop to its exit, in ms.
   */
  stop(seconds?: number): Promise<{ exitCode: number; ms: number }>;
  /** Removes it, running or not (`podman rm --force`); safe to call twice. */
  remove(): Promise<void>;
}

/** What startContainer is given. */
export interface ContainerOptions {
  /** The command's flags (after the image's entrypoint). */
  args?: readonly string[];
  /** Environment variables; HOST=127.0.0.1 and PORT=<a free port> are set unless given. */
  env?: Record<string, string>;
  /** A read-only root filesystem (`--read-only`; podman mounts a tmpfs on /tmp); default true. */
  readOnly?: boolean;
  /** The path that answers 200 once it is ready; default /healthz. */
  readyPath?: string;
  /** How long it has to get ready, in ms; default 30 s. */
  readyTimeoutMs?: number;
}

let containers = 0;

/**
 * Starts `image` in the background on the host's network, listening on 127.0.0.1 and a free port (HOST, PORT), and
 * resolves once its readyPath answers 200; fails with its logs (and removes it) when it exits or is not ready in time.
 */
export async function startContainer(image: string, options: ContainerOptions = {}): Promise<Container> {
  const port = Number(options.env?.PORT ?? (await freePort()));
  const env = { HOST: "127.0.0.1", PORT: String(port), ...options.env };
  const name = `compute-api-test-${process.pid}-${++containers}-${Date.now().toString(36)}`;
  const args = ["run", "--detach", "--name", name, "--network", "host"];
  if (options.readOnly ?? true) args.push("--read-only");
  for (const [key, value] of Object.entries(env)) args.push("--env", `${key}=${value}`);
  args.push(image, ...(options.args ?? []));
  const url = `http://127.0.0.1:${port}`;
  const container: Container = {
    name,
    url,
    port,
    logs: async () => {
      const { stdout, stderr } = await podman(["logs", name], { allowFailure: true });
      return stdout + stderr;
    },
    exec: (command) => podman(["exec", name, ...command], { allowFailure: true }),
    stop: async (seconds = 10) => {
      const started = performance.now();
      await podman(["stop", "--time", String(seconds), name], { timeoutMs: (seconds + 30) * 1000 });
      const ms = performance.now() - started;
      const { stdout } = await podman(["inspect", "--format", "{{.State.ExitCode}}", name]);
      return { exitCode: Number(stdout.trim()), ms };
    },
    remove: async () => {
      await podman(["rm", "--force", "--time", "0", name], { allowFailure: true });
    },
  };
  await podman(args);
  try {
    await untilReady(container, options.readyPath ?? "/healthz", options.readyTimeoutMs ?? 30_000);
  } catch (error) {
    const logs = await container.logs();
    await container.remove();
    throw new Error(`${(error as Error).message}; its output:\n${logs.slice(-4000)}`);
  }
  return container;
}

/**
 * The status of a GET of `url` on a connection of its own, closed after it (no idle connection of the suite's may
 * hold a draining container open for its grace period); 0 when there is no answer.
 */
function statusOf(url: string): Promise<number> {
  return new Promise((resolve) => {
    const request = get(url, { agent: false, timeout: 2000 }, (response) => {
      response.resume();
      response.once("end", () => resolve(response.statusCode ?? 0));
    });
    request.once("timeout", () => request.destroy());
    request.once("error", () => resolve(0));
  });
}

async function untilReady(container: Container, path: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if ((await statusOf(container.url + path)) === 200) return;
    const state = await podman(["inspect", "--format", "{{.State.Status}}", container.name], { allowFailure: true });
    if (state.stdout.trim() === "exited") throw new Error(`container ${container.name} exited before it was ready`);
    if (Date.now() > deadline) throw new Error(`container ${container.name} not ready in ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
