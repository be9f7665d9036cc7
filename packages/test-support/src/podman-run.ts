/**
 * The podman runner of the container suites: `podman <args>` with the project's settings (deploy/images/
 * containers.conf through CONTAINERS_CONF: runc, default ulimits this machine accepts, host networking), with a bound
 * on each command, and whether a suite must skip for want of podman (`describe.skipIf(skipWithoutPodman())`).
 */
import { spawn } from "node:child_process";
import { podmanEnv } from "../../../scripts/images.js";
import { debootstrapProgram, podmanProgram, requireProgram, runcProgram, skipWithout } from "./system.js";

/** How long a podman command may take unless its caller says otherwise (2 minutes). */
export const commandBound = 2 * 60_000;

/**
 * Whether the suites that need podman must skip: podman, its runtime runc or debootstrap (for the base image) absent,
 * not CI; prints once per run how to get what is missing.
 */
export function skipWithoutPodman(): boolean {
  return skipWithout(podmanProgram, runcProgram, debootstrapProgram);
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

/**
 * Runs `podman <args>` with the project's containers.conf; rejects on a non-zero status with its stderr, and at once
 * when podman or runc is absent.
 */
export function podman(args: readonly string[], options: PodmanOptions = {}): Promise<PodmanResult> {
  const path = requireProgram(podmanProgram);
  requireProgram(runcProgram);
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
export async function imageExists(image: string): Promise<boolean> {
  return (await podman(["image", "exists", image], { allowFailure: true })).code === 0;
}
