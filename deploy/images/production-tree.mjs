// Run in the Containerfile's build stage, after the compile: `node production-tree.mjs <workspace> <out>` makes <out>
// the whole run-time tree of one command: the lockfile's production dependencies of <workspace> (`npm ci --omit=dev`,
// no scripts), and of every @compute-api workspace package it links, only what runs (package.json, LICENSE, dist/,
// bin/ and the data files the code reads), never src/, tests, tsconfig, type declarations or source maps. The
// runtime stage copies <out> as it is.
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { join, relative, resolve } from "node:path";

/** What a workspace package needs at run time, where it has it (migrations/: the Postgres example's SQL files). */
const runTimeFiles = ["package.json", "LICENSE", "dist", "bin", "migrations", "examples"];
/**
 * Production dependencies that the compiled command does not use: the Postgres example declares tsx because its
 * bin runs the TypeScript sources; the image runs its compiled dist/, so the compiler (tsx and esbuild) stays out.
 */
const compilers = ["tsx", "esbuild", "@esbuild"];

const [workspace, outArg] = process.argv.slice(2);
if (!workspace || !outArg) {
  process.stderr.write("usage: node production-tree.mjs <workspace> <out>\n");
  process.exit(2);
}
const src = process.cwd();
const out = resolve(outArg);
const root = JSON.parse(readFileSync(join(src, "package.json"), "utf8"));

// npm ci checks the lockfile against every workspace's manifest, so all of them come along (manifests only).
mkdirSync(out, { recursive: true });
for (const file of ["package.json", "package-lock.json", ".npmrc"]) cpSync(join(src, file), join(out, file));
const workspaces = root.workspaces.flatMap((pattern) => {
  const parent = pattern.replace(/\/\*$/, "");
  return readdirSync(join(src, parent)).map((name) => join(parent, name));
});
for (const dir of workspaces) {
  if (!existsSync(join(src, dir, "package.json"))) continue;
  mkdirSync(join(out, dir), { recursive: true });
  cpSync(join(src, dir, "package.json"), join(out, dir, "package.json"));
}
execFileSync(
  "npm",
  ["ci", "--omit=dev", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error", "--workspace", workspace],
  { cwd: out, stdio: "inherit" },
);

// The workspace packages npm linked into node_modules/@compute-api: their run-time files from the compiled tree.
// The other workspaces' manifests were only for npm ci.
const linked = join(out, "node_modules", "@compute-api");
const used = new Set(
  (existsSync(linked) ? readdirSync(linked) : []).map((name) => relative(out, realpathSync(join(linked, name)))),
);
for (const dir of workspaces) {
  if (!used.has(dir)) rmSync(join(out, dir), { recursive: true, force: true });
}
for (const dir of used) {
  for (const file of runTimeFiles) {
    if (existsSync(join(src, dir, file))) cpSync(join(src, dir, file), join(out, dir, file), { recursive: true });
  }
}
for (const name of compilers) rmSync(join(out, "node_modules", name), { recursive: true, force: true });
// Type declarations and source maps, of the dependencies and of the compiled packages: read by editors and
// debuggers, never by the running command (a third of the tree).
const unread = ["*.d.ts", "*.d.mts", "*.d.cts", "*.map"].flatMap((pattern, i) => [
  ...(i ? ["-o"] : []),
  "-name",
  pattern,
]);
execFileSync("find", [out, "-type", "f", "(", ...unread, ")", "-delete"]);
for (const file of ["package-lock.json", ".npmrc"]) rmSync(join(out, file));
