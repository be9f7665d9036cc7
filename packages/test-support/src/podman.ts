/**
 * podman for the container suites (test/containers): a runner with the project's settings (deploy/images/
 * containers.conf through CONTAINERS_CONF: runc, default ulimits this machine accepts, host networking), the tests'
 * own Node.js 24 base image, built here because no image registry is reachable (a Debian bookworm root filesystem
 * from debootstrap, imported with `podman import`, plus Node.js 24 from the npm registry (node-binary.ts) and the
 * host's npm; podman's image store keeps it between runs), and the project's images built as `npm run images` builds
 * them, on that base. Suites skip without podman, runc or debootstrap (`describe.skipIf(skipWithoutPodman())`), except
 * under CI. The runner lives in podman-run.ts and the images in podman-images.ts (re-exported here); this module
 * starts the containers.
 */
import { get } from "node:http";
import { variableOf } from "@compute-api/runtime/cli";
import { imageTargets } from "./images/index.js";
import { freePort } from "./listen-local.js";
import { type PodmanResult, podman } from "./podman-run.js";

export type { BuiltImage } from "./images/index.js";
export { baseImage, buildImages, ensureBaseImage } from "./podman-images.js";
export { type PodmanOptions, type PodmanResult, podman, skipWithoutPodman } from "./podman-run.js";

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
  /**
   * Environment variables; the variables of the image's command's --host (127.0.0.1) and --port (a free port),
   * such as COMPUTE_STUB_HOST and COMPUTE_STUB_PORT, are set unless given.
   */
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
 * Starts `image` in the background on the host's network, listening on 127.0.0.1 and a free port (its command's
 * --host and --port variables), and
 * resolves once its readyPath answers 200; fails with its logs (and removes it) when it exits or is not ready in time.
 */
export async function startContainer(image: string, options: ContainerOptions = {}): Promise<Container> {
  const command = imageTargets.find((target) => image.includes(`/${target.target}:`))?.command;
  if (!command) throw new Error(`${image} is none of the project's images`);
  const [host, portVariable] = [variableOf(command, "--host"), variableOf(command, "--port")];
  const port = Number(options.env?.[portVariable] ?? (await freePort()));
  const env = { [host]: "127.0.0.1", [portVariable]: String(port), ...options.env };
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
