/**
 * `npm run pack -- <package…> [--out <dir>]`: packs the named packages (`client`, or `@compute-api/client`) with
 * every @compute-api package they depend on, in dependency order, into one folder (default `dist-packages/`), and
 * prints the one `npm install` line that installs them into a project of your own. Until the packages are on the
 * registry, this is how to install them; the packaging test installs its tarballs the same way.
 */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs, promisify } from "node:util";

const run = promisify(execFile);
const root = fileURLToPath(new URL("..", import.meta.url));

/** A publishable workspace package: its folder and its @compute-api dependencies. */
export interface WorkspacePackage {
  name: string;
  dir: string;
  internal: string[];
}

/** Every package under packages/ that is not private, by name. */
export function workspacePackages(): Map<string, WorkspacePackage> {
  const found = new Map<string, WorkspacePackage>();
  for (const folder of readdirSync(join(root, "packages"))) {
    const dir = join("packages", folder);
    let manifest: { name: string; private?: boolean; dependencies?: Record<string, string> };
    try {
      manifest = JSON.parse(readFileSync(join(root, dir, "package.json"), "utf8"));
    } catch {
      continue;
    }
    if (manifest.private) continue;
    const internal = Object.keys(manifest.dependencies ?? {}).filter((d) => d.startsWith("@compute-api/"));
    found.set(manifest.name, { name: manifest.name, dir, internal });
  }
  return found;
}

/** The named packages and every @compute-api package they depend on, dependencies first; throws for an unknown name. */
export function withDependencies(names: readonly string[], packages = workspacePackages()): WorkspacePackage[] {
  const ordered: WorkspacePackage[] = [];
  const visit = (name: string, from?: string) => {
    const full = name.startsWith("@") ? name : `@compute-api/${name}`;
    const pkg = packages.get(full);
    if (!pkg) {
      const known = [...packages.keys()].map((n) => n.replace("@compute-api/", "")).join(", ");
      throw new Error(`no package ${JSON.stringify(name)}${from ? ` (a dependency of ${from})` : ""}; one of ${known}`);
    }
    if (ordered.includes(pkg)) return;
    for (const dependency of pkg.internal) visit(dependency, pkg.name);
    if (!ordered.includes(pkg)) ordered.push(pkg);
  };
  for (const name of names) visit(name);
  return ordered;
}

/** One packed tarball. */
export interface PackedTarball {
  name: string;
  /** The tarball's path. */
  file: string;
  /** What it holds, as npm pack lists it (paths inside `package/`). */
  files: { path: string }[];
}

/** Packs the packages (built first by their `prepack`/`prepare`, as npm pack does) into `outDir`. */
export async function packInto(packages: readonly WorkspacePackage[], outDir: string): Promise<PackedTarball[]> {
  mkdirSync(outDir, { recursive: true });
  const { stdout } = await run(
    "npm",
    ["pack", "--json", "--pack-destination", outDir, ...packages.flatMap((p) => ["-w", p.dir])],
    { cwd: root, maxBuffer: 64 * 1024 * 1024 },
  );
  const packed = JSON.parse(stdout) as { name: string; filename: string; files: { path: string }[] }[];
  return packed.map((p) => ({ name: p.name, file: join(outDir, p.filename), files: p.files }));
}

/** A package.json, as much of it as installing reads. */
export type Manifest = Record<string, unknown> & {
  name: string;
  version: string;
  scripts?: Record<string, string>;
  dependencies?: Record<string, string>;
  repository?: { directory?: string };
};
type LockEntry = Record<string, unknown> & { version?: string; resolved?: string; link?: boolean; dev?: boolean };

/** The package.json inside a tarball. */
export async function manifestOf(tarball: string): Promise<Manifest> {
  return JSON.parse((await run("tar", ["-xzOf", tarball, "package/package.json"])).stdout) as Manifest;
}

/**
 * A lockfile for a project of the tarballs: them, and every package this repository's lockfile installs for the
 * workspaces at run time (plus `devDependencies`' own entries), each with its registry URL, so that
 * `npm ci --offline` takes them from npm's cache by integrity and never needs the registry's metadata.
 */
function projectLock(
  dependencies: Record<string, string>,
  tarballs: Record<string, LockEntry>,
  devDependencies: Record<string, string>,
): object {
  const lock = JSON.parse(readFileSync(join(root, "package-lock.json"), "utf8")) as {
    packages: Record<string, LockEntry>;
  };
  const devKept = new Set(Object.keys(devDependencies).flatMap((name) => [`node_modules/${name}`]));
  if (devKept.has("node_modules/@types/node")) devKept.add("node_modules/undici-types");
  const packages: Record<string, LockEntry> = {};
  for (const [key, entry] of Object.entries(lock.packages)) {
    if (!key.startsWith("node_modules/") || entry.link || key.startsWith("node_modules/@compute-api/")) continue;
    if (entry.dev && !devKept.has(key)) continue;
    const { dev: _dev, devOptional: _devOptional, peer: _peer, ...rest } = entry;
    const name = key.slice(key.lastIndexOf("node_modules/") + "node_modules/".length);
    packages[key] = {
      ...rest,
      resolved: rest.resolved ?? `https://registry.npmjs.org/${name}/-/${name.split("/").pop()}-${rest.version}.tgz`,
    };
  }
  return {
    name: "project",
    lockfileVersion: 3,
    requires: true,
    packages: { "": { name: "project", dependencies, devDependencies }, ...tarballs, ...packages },
  };
}

/**
 * Installs the tarballs into an empty project at `dir` with `npm ci --offline`, as a user who packed them would
 * install them, every other package at this repository's locked version (from npm's cache); resolves each
 * tarball's manifest, in order.
 */
export async function installTarballs(
  dir: string,
  tarballs: readonly PackedTarball[],
  devDependencies: Record<string, string> = {},
): Promise<Manifest[]> {
  mkdirSync(dir, { recursive: true });
  const manifests = await Promise.all(tarballs.map(({ file }) => manifestOf(file)));
  const dependencies: Record<string, string> = {};
  const locked: Record<string, LockEntry> = {};
  tarballs.forEach(({ file }, i) => {
    const manifest = manifests[i]!;
    const spec = `file:${relative(dir, file)}`;
    dependencies[manifest.name] = spec;
    const integrity = `sha512-${createHash("sha512").update(readFileSync(file)).digest("base64")}`;
    const { version, license, dependencies: deps, bin, engines } = manifest;
    locked[`node_modules/${manifest.name}`] = {
      version,
      resolved: spec,
      integrity,
      license,
      ...(deps ? { dependencies: deps } : {}),
      ...(bin ? { bin } : {}),
      ...(engines ? { engines } : {}),
    };
  });
  const project = { name: "project", private: true, type: "module", dependencies, devDependencies };
  writeFileSync(join(dir, "package.json"), JSON.stringify(project, null, 2));
  writeFileSync(
    join(dir, "package-lock.json"),
    JSON.stringify(projectLock(dependencies, locked, devDependencies), null, 2),
  );
  await run("npm", ["ci", "--offline", "--no-audit", "--no-fund", "--loglevel=error"], { cwd: dir });
  return manifests;
}

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { out: { type: "string", default: "dist-packages" }, help: { type: "boolean", short: "h" } },
  });
  const known = [...workspacePackages().keys()].map((n) => n.replace("@compute-api/", ""));
  if (values.help || positionals.length === 0) {
    process.stdout.write(
      `Usage: npm run pack -- <package…> [--out <dir>]\n  packages: ${known.join(", ")}\n` +
        "Packs them with every @compute-api package they depend on into <dir> (default dist-packages/).\n",
    );
    return positionals.length === 0 && !values.help ? 2 : 0;
  }
  let packages: WorkspacePackage[];
  try {
    packages = withDependencies(positionals);
  } catch (error) {
    process.stderr.write(`pack: ${(error as Error).message}\n`);
    return 2;
  }
  const outDir = resolve(values.out);
  const tarballs = await packInto(packages, outDir);
  // Absolute paths: the line is run in the user's own project, not here.
  const shown = tarballs.map((t) => (t.file.includes(" ") ? `"${t.file}"` : t.file));
  process.stdout.write(
    `Packed ${tarballs.map((t) => t.name).join(", ")} into ${outDir}/\n` +
      `Install them into your project with:\n  npm install ${shown.join(" ")}\n`,
  );
  return 0;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = await main(process.argv.slice(2));
}
