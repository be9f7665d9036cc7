/**
 * Node.js from the npm registry (src/node-binary.ts), through the script CI calls (scripts/node-binary.ts): three
 * processes asking at once for a line no one fetched yet get the same executable, of the pinned version, from one
 * fetch; a later ask fetches nothing; a fetch's working folder left by a killed fetch and a dead process's lock stand
 * in no one's way. npm's own cache keeps the tarball, so after the machine's first fetch this reaches no registry.
 */
import { execFile, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { type NodeLine, nodeBinary, nodeLines, pinnedNodeVersion } from "../src/node-binary.js";

const root = fileURLToPath(new URL("../../../", import.meta.url));
const script = join(root, "scripts/node-binary.ts");
const tsx = join(root, "node_modules/tsx/dist/cli.mjs");
const run = promisify(execFile);

/** Line 24, what the suites fetch, unless this process runs that very version (then nodeBinary returns itself). */
const line: NodeLine = ([24, 22, 26] as const).find((l) => `v${pinnedNodeVersion(l)}` !== process.version) ?? 24;
const version = pinnedNodeVersion(line);
const name = `node-${process.platform}-${process.arch}-${version}`;

/** `tsx scripts/node-binary.ts <line> --cache-dir <cacheDir>`: the path it printed and what it said on stderr. */
async function fetchInChild(cacheDir: string): Promise<{ path: string; stderr: string }> {
  const env = { ...process.env };
  delete env[`NODE${line}_PATH`];
  const { stdout, stderr } = await run(process.execPath, [tsx, script, String(line), "--cache-dir", cacheDir], {
    env,
    timeout: 10 * 60_000,
  });
  return { path: stdout.trim(), stderr };
}

describe("Node.js from the npm registry", () => {
  const cacheDir = mkdtempSync(join(tmpdir(), "compute-api-node-cache-"));
  afterAll(() => rmSync(cacheDir, { recursive: true, force: true }));

  it(
    "is fetched once for three processes asking at once, is the pinned version, and is not fetched again",
    async () => {
      // What a fetch killed half-way leaves (a working folder with a broken binary) and the lock of a dead process.
      const left = join(cacheDir, `.${name}-killed`, "package", "bin");
      mkdirSync(left, { recursive: true });
      writeFileSync(join(left, "node"), "#!/bin/sh\necho v0.0.0\n", { mode: 0o755 });
      const dead = spawnSync("true").pid;
      writeFileSync(join(cacheDir, `${name}.lock`), `${dead}\n`);

      const asks = await Promise.all([1, 2, 3].map(() => fetchInChild(cacheDir)));
      const paths = new Set(asks.map((ask) => ask.path));
      expect([...paths]).toEqual([join(cacheDir, name, "bin", "node")]);
      const fetches = asks.flatMap((ask) => ask.stderr.split("\n").filter((l) => l.startsWith("fetching Node.js")));
      expect(fetches).toEqual([
        `fetching Node.js ${version} (node-${process.platform}-${process.arch}@${version}) from the npm registry into ${cacheDir}, once`,
      ]);
      const { stdout } = await run(asks[0]?.path ?? "", ["--version"]);
      expect(stdout.trim()).toBe(`v${version}`);
      // Nothing else is left: no working folder, no lock.
      expect(readdirSync(cacheDir)).toEqual([name]);

      const again = await fetchInChild(cacheDir);
      expect(again).toEqual({ path: join(cacheDir, name, "bin", "node"), stderr: "" });
    },
    15 * 60_000,
  );

  it("is NODE<line>_PATH when that is set, and this process's own node when it is the pinned version", async () => {
    const saved = process.env.NODE24_PATH;
    process.env.NODE24_PATH = "/opt/some/node";
    try {
      expect(await nodeBinary(24, { cacheDir })).toBe("/opt/some/node");
    } finally {
      if (saved === undefined) delete process.env.NODE24_PATH;
      else process.env.NODE24_PATH = saved;
    }
    const own = nodeLines.find((l) => `v${pinnedNodeVersion(l)}` === process.version);
    if (own !== undefined) expect(await nodeBinary(own, { cacheDir: join(cacheDir, "unused") })).toBe(process.execPath);
  });
});
