// Run in the Containerfile's build stage before the sources are copied: `node build-deps.mjs <workspace>…` installs
// what compiling those workspaces reads, and nothing else. First `npm ci --workspace …` of each: their dependencies
// and devDependencies (msw, whose types the stub's MSW handlers compile against) as the lockfile pins them, with the
// workspace packages they link. Then the compiler and the type packages among the root's devDependencies that this
// install lacks (typescript, @types/cors, …): each fetched with `npm pack` at the lockfile's version, refused unless
// its integrity is the lockfile's, and unpacked where the lockfile puts it (node_modules/<name>). The root's other
// devDependencies (the linters, the docs and test tools, Chromium's driver: three quarters of a full install) are
// never installed.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const workspaces = process.argv.slice(2);
if (workspaces.length === 0) {
  process.stderr.write("usage: node build-deps.mjs <workspace>…\n");
  process.exit(2);
}
const quiet = ["--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error"];
execFileSync("npm", ["ci", ...quiet, ...workspaces.flatMap((workspace) => ["--workspace", workspace])], {
  stdio: "inherit",
});

const root = JSON.parse(readFileSync("package.json", "utf8"));
const locked = JSON.parse(readFileSync("package-lock.json", "utf8")).packages;
const tools = Object.keys(root.devDependencies ?? {}).filter(
  (name) => (name === "typescript" || name.startsWith("@types/")) && !existsSync(join("node_modules", name)),
);
const dir = mkdtempSync(join(tmpdir(), "build-deps-"));
try {
  const specs = tools.map((name) => `${name}@${locked[`node_modules/${name}`]?.version}`);
  const packed = JSON.parse(
    execFileSync("npm", ["pack", "--json", "--pack-destination", dir, "--loglevel=error", ...specs], {
      encoding: "utf8",
    }),
  );
  for (const name of tools) {
    const entry = locked[`node_modules/${name}`];
    const tarball = packed.find((p) => p.name === name);
    if (!tarball || tarball.integrity !== entry.integrity) {
      throw new Error(`${name}@${entry.version}: the registry's tarball is not the lockfile's (${tarball?.integrity})`);
    }
    const target = join("node_modules", name);
    mkdirSync(target, { recursive: true });
    execFileSync("tar", ["-xzf", join(dir, tarball.filename), "-C", target, "--strip-components=1"]);
    const absent = Object.keys(entry.dependencies ?? {}).filter((d) => !existsSync(join("node_modules", d)));
    if (absent.length > 0) throw new Error(`${name} needs ${absent.join(", ")}, which the install lacks`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
process.stdout.write(`compiler and types from the root's devDependencies: ${tools.join(", ") || "none needed"}\n`);
