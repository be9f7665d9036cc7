// The run-time tree of one command, made in the Containerfile's build stage in two parts, each copied into the
// runtime stage as a layer of its own, so that a change to the sources alone leaves the dependencies' layer as it was:
//
//   node production-tree.mjs deps <workspace> <out>   before the sources are copied, after build-deps.mjs: the
//     production dependencies of <workspace> (`npm ls --omit=dev --all` of the build stage's install, which holds
//     them where the lockfile puts them), copied to <out>/node_modules, with the root's and the linked @compute-api
//     workspace packages' package.json;
//   node production-tree.mjs files <out> <files-out>  after the compile: of each @compute-api workspace package linked
//     in <out>, only what runs (LICENSE, dist/, bin/ and the data files the code reads), never src/, tests, tsconfig,
//     type declarations or source maps, in <files-out> at the same paths.
import { execFileSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  linkSync,
  mkdirSync,
  readdirSync,
  readlinkSync,
  realpathSync,
  rmSync,
  symlinkSync,
} from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

/**
 * What a workspace package needs at run time besides its package.json (migrations/: the Postgres example's SQL;
 * src/generated/tools.json: compute-mcp's tools, which its dist/ reads there).
 */
const runTimeFiles = ["LICENSE", "dist", "bin", "migrations", "examples", "src/generated/tools.json"];
/**
 * Production dependencies that the compiled command does not use: the Postgres example declares tsx because its
 * bin runs the TypeScript sources; the image runs its compiled dist/, so the compiler (tsx and esbuild) stays out.
 */
const compilers = ["tsx", "esbuild", "@esbuild"];
/** Type declarations and source maps: read by editors and debuggers, never by the running command. */
const unread = ["*.d.ts", "*.d.mts", "*.d.cts", "*.map"].flatMap((pattern, i) => [
  ...(i ? ["-o"] : []),
  "-name",
  pattern,
]);

const [command, ...args] = process.argv.slice(2);
const src = process.cwd();
if (command === "deps" && args.length === 2) deps(args[0], resolve(args[1]));
else if (command === "files" && args.length === 2) files(resolve(args[0]), resolve(args[1]));
else {
  process.stderr.write("usage: node production-tree.mjs deps <workspace> <out> | files <out> <files-out>\n");
  process.exit(2);
}

/** The folders (relative to `out`) of the workspace packages npm linked into `out`/node_modules/@compute-api. */
function linkedWorkspaces(out) {
  const linked = join(out, "node_modules", "@compute-api");
  return (existsSync(linked) ? readdirSync(linked) : []).map((name) => relative(out, realpathSync(join(linked, name))));
}

function deps(workspace, out) {
  // Every package of the workspace's production tree as npm resolves it in the build stage's install (which holds
  // it, at the lockfile's places): each package's folder without its own node_modules (those listed are linked at
  // their own place), a workspace package as npm links it, with its package.json.
  const listed = execFileSync("npm", ["ls", "--omit=dev", "--all", "--parseable", "--workspace", workspace], {
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  mkdirSync(out, { recursive: true });
  cpSync(join(src, "package.json"), join(out, "package.json"));
  for (const path of listed.split("\n").filter(Boolean).map((line) => relative(src, line))) {
    if (path === "" || path.startsWith("..")) continue;
    const real = relative(src, realpathSync(join(src, path)));
    mkdirSync(dirname(join(out, path)), { recursive: true });
    if (real !== path) {
      symlinkSync(relative(dirname(join(out, path)), join(out, real)), join(out, path));
      mkdirSync(join(out, real), { recursive: true });
      cpSync(join(src, real, "package.json"), join(out, real, "package.json"));
      continue;
    }
    linkTree(join(src, path), join(out, path), join(src, path, "node_modules"));
  }
  for (const name of compilers) rmSync(join(out, "node_modules", name), { recursive: true, force: true });
  execFileSync("find", [join(out, "node_modules"), "-type", "f", "(", ...unread, ")", "-delete"]);
}

/**
 * `from` at `to` by hard links (the install and the trees are written in the same step: one copy of each file in its
 * layer, none made), without the folder `skip`.
 */
function linkTree(from, to, skip) {
  mkdirSync(to, { recursive: true });
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    const [source, target] = [join(from, entry.name), join(to, entry.name)];
    if (source === skip) continue;
    if (entry.isDirectory()) linkTree(source, target, skip);
    else if (entry.isSymbolicLink()) symlinkSync(readlinkSync(source), target);
    else linkSync(source, target);
  }
}

function files(out, filesOut) {
  for (const dir of linkedWorkspaces(out)) {
    for (const file of runTimeFiles) {
      if (existsSync(join(src, dir, file))) cpSync(join(src, dir, file), join(filesOut, dir, file), { recursive: true });
    }
  }
  if (existsSync(filesOut)) execFileSync("find", [filesOut, "-type", "f", "(", ...unread, ")", "-delete"]);
}
