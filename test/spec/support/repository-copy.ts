/**
 * A copy of the repository to change and build in a test: its files as git sees them (tracked, and untracked ones
 * not ignored), and a node_modules of its own whose workspace links point into the copy while every other package
 * is a link to the original's (read only; nothing in the build writes there). Copying node_modules (over 1 GB) or
 * hard-linking it (a file rewritten in place would change the original too) is what this avoids.
 */
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, readdirSync, readFileSync, readlinkSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { parseDocument } from "yaml";

/** Copies the repository at `root` into `into` (an empty or missing folder). */
export function copyRepository(root: string, into: string): void {
  const files = execFileSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], {
    cwd: root,
    maxBuffer: 64 * 1024 * 1024,
  })
    .toString()
    .split("\0")
    .filter((file) => file !== "");
  for (const file of new Set(files)) {
    const from = path.join(root, file);
    const to = path.join(into, file);
    mkdirSync(path.dirname(to), { recursive: true });
    try {
      cpSync(from, to, { verbatimSymlinks: true });
    } catch (error) {
      // A file git still lists but the work tree has deleted.
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    }
  }
  linkNodeModules(path.join(root, "node_modules"), path.join(into, "node_modules"));
}

/** node_modules for the copy: relative links (the workspaces) copied as links, every other entry linked to `from`'s. */
function linkNodeModules(from: string, to: string): void {
  mkdirSync(to, { recursive: true });
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    const source = path.join(from, entry.name);
    const target = path.join(to, entry.name);
    if (entry.isSymbolicLink() && !path.isAbsolute(readlinkSync(source))) {
      symlinkSync(readlinkSync(source), target);
    } else if (entry.isDirectory() && (entry.name.startsWith("@") || entry.name === ".bin")) {
      linkNodeModules(source, target);
    } else if (entry.name !== ".cache" && entry.name !== ".vite" && entry.name !== ".vitest") {
      symlinkSync(source, target);
    }
  }
}

/**
 * Adds the operations under `from` (a `paths/` folder of path files, written as openapi/README.md says) to the
 * copy's openapi/: each file into openapi/paths/, its path into the `paths:` map, its tags into `tags:`.
 */
export function addOperations(from: string, copy: string): void {
  const entry = path.join(copy, "openapi", "openapi.yaml");
  const document = parseDocument(readFileSync(entry, "utf8"));
  const tags = new Set((document.toJS().tags as { name: string }[]).map((tag) => tag.name));
  for (const file of readdirSync(path.join(from, "paths")).sort()) {
    cpSync(path.join(from, "paths", file), path.join(copy, "openapi", "paths", file));
    const template = `/${file.replace(/\.yaml$/, "").replaceAll("_", "/")}`;
    document.setIn(["paths", template], document.createNode({ $ref: `paths/${file}` }));
    const item = parseDocument(readFileSync(path.join(from, "paths", file), "utf8")).toJS() as Record<
      string,
      { tags?: string[] }
    >;
    for (const operation of Object.values(item)) {
      for (const tag of (operation as { tags?: string[] }).tags ?? []) {
        if (tags.has(tag)) continue;
        tags.add(tag);
        document.addIn(["tags"], document.createNode({ name: tag, description: `The ${tag.toLowerCase()}.` }));
      }
    }
  }
  writeFileSync(entry, document.toString());
}
