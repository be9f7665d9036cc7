/**
 * Every package works where it is installed, not only inside this repository. Each package is packed with
 * `npm pack`, once for the suite, and the tarballs are installed into an empty project with `npm ci --offline`, from
 * the tarballs and npm's cache (a lockfile for the project is written from this repository's, so no registry is
 * asked). Then, as a new user would: `npx compute-stub` starts and answers a search with the key it printed,
 * `npx compute-gateway` forwards a search to it, `npx compute-conformance` holds it to the spec, `npx -y
 * @compute-api/mcp --help` answers, and a strict TypeScript consumer (skipLibCheck off, `nodenext` and `bundler` resolution)
 * type-checks against the installed packages' declarations.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, readlinkSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  installTarballs,
  type Manifest,
  type PackedTarball,
  packInto,
  withDependencies,
  workspacePackages,
} from "../../scripts/pack.js";

const run = promisify(execFile);
const root = fileURLToPath(new URL("../..", import.meta.url));
/** Every package that is published: each folder of packages/ whose package.json is not private. */
const workspaces = [...workspacePackages().values()].map((p) => p.dir.slice("packages/".length));
const lifecycle = ["preinstall", "install", "postinstall", "prepare", "prepublish", "preprepare", "postprepare"];

interface Packed {
  name: string;
  filename: string;
  files: { path: string }[];
}
const scratch = mkdtempSync(join(tmpdir(), "compute-api-packages-"));
const consumer = join(scratch, "consumer");
/** Every package's tarball, as `npm run pack` makes them, packed once for the suite. */
const tarballDir = join(scratch, "tarballs");
let tarballs: PackedTarball[] = [];
const children: ChildProcess[] = [];
let packed: (Packed & { manifest: Manifest })[] = [];

/**
 * Starts an installed command with npx in the consumer; resolves with its output once it matches `until`. The
 * child leads a process group of its own (npx, and the node process of the command it starts), so that the whole
 * group can be ended: ending npx alone would leave the command running.
 */
function start(args: string[], until: RegExp): Promise<string> {
  const child = spawn("npx", ["--offline", ...args], {
    cwd: consumer,
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  children.push(child);
  return new Promise((resolve, reject) => {
    let output = "";
    const timer = setTimeout(
      () => reject(new Error(`${args[0]} printed nothing like ${until} within 120 s:\n${output}`)),
      120_000,
    );
    const check = (chunk: Buffer) => {
      output += chunk.toString();
      if (until.test(output)) {
        clearTimeout(timer);
        resolve(output);
      }
    };
    child.stdout.on("data", check);
    child.stderr.on("data", check);
    child.once("exit", (code) => reject(new Error(`${args[0]} exited with ${code}:\n${output}`)));
  });
}

/**
 * Installs the tarballs of the named packages and of every package they depend on (`npm run pack -- <names>`'s set,
 * from the suite's one pack) into an empty project at `dir` with `npm ci --offline`, as a user who packed them would
 * install them; resolves what was installed, each with its manifest and file list.
 */
async function installPackages(dir: string, names: readonly string[]): Promise<(Packed & { manifest: Manifest })[]> {
  const wanted = new Set(withDependencies(names).map((p) => p.name));
  const chosen = tarballs.filter((tarball) => wanted.has(tarball.name));
  const typesNode = createRequire(import.meta.url)("@types/node/package.json") as { version: string };
  const manifests = await installTarballs(dir, chosen, { "@types/node": typesNode.version });
  return chosen.map(({ file, files }, i) => {
    const manifest = manifests[i]!;
    return { name: manifest.name, filename: file.slice(tarballDir.length + 1), files, manifest };
  });
}

beforeAll(async () => {
  tarballs = await packInto(withDependencies(workspaces), tarballDir);
  packed = await installPackages(consumer, workspaces);
  // What the TypeScript consumers below compile.
  writeFileSync(
    join(consumer, "consumer.ts"),
    readFileSync(fileURLToPath(new URL("fixtures/consumer.ts", import.meta.url)), "utf8"),
  );
}, 540_000);

/** Whether any process of the group led by `pid` is still running. */
function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Sends a signal to every process of the group led by `pid`, if any is left. */
function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // The group is gone already.
  }
}

/**
 * Ends every process group the suite started: SIGTERM, up to 10 s for them to drain and exit, then SIGKILL. The
 * suite fails when a group outlived SIGTERM, or is still there after SIGKILL, naming the commands.
 */
async function endChildren(): Promise<void> {
  const groups = children.flatMap((child) =>
    child.pid === undefined ? [] : [{ pid: child.pid, command: child.spawnargs.slice(2, 3).join(" ") }],
  );
  for (const { pid } of groups) signalGroup(pid, "SIGTERM");
  const deadline = Date.now() + 30_000;
  while (groups.some(({ pid }) => groupAlive(pid)) && Date.now() < deadline) await sleep(100);
  const lingering = groups.filter(({ pid }) => groupAlive(pid));
  for (const { pid } of lingering) signalGroup(pid, "SIGKILL");
  await sleep(100);
  const left = groups.filter(({ pid }) => groupAlive(pid));
  if (lingering.length > 0 || left.length > 0)
    throw new Error(
      `still running at the end of the suite: ${lingering.map((g) => `${g.command} (process group ${g.pid})`).join(", ")}` +
        (left.length > 0 ? `; still alive after SIGKILL: ${left.map((g) => g.pid).join(", ")}` : ""),
    );
}

afterAll(async () => {
  try {
    await endChildren();
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}, 120_000);

describe("the tarballs", () => {
  it.each(workspaces)(
    "%s: a LICENSE, a README, its repository folder, keywords, MIT, and no script that runs on install",
    (workspace) => {
      const p = packed.find((x) => x.manifest.repository?.directory === `packages/${workspace}`);
      expect(p, `no tarball of packages/${workspace}`).toBeDefined();
      const files = p!.files.map((f) => f.path);
      expect(files).toEqual(expect.arrayContaining(["LICENSE", "README.md", "package.json"]));
      expect(p!.manifest).toMatchObject({ license: "MIT", keywords: expect.arrayContaining([expect.any(String)]) });
      expect(Object.keys(p!.manifest.scripts ?? {}).filter((s) => lifecycle.includes(s))).toEqual([]);
    },
  );

  it("the spec's README is written for spec consumers, not the repository's", () => {
    const readme = readFileSync(join(consumer, "node_modules/@compute-api/spec/README.md"), "utf8");
    expect(readme).toMatch(/npm install @compute-api\/spec/);
    expect(readme).not.toMatch(/## Quick start|npm start/);
  });

  it("the packages find the spec through @compute-api/spec, never a path out of their own folder", () => {
    for (const { files, manifest } of packed) {
      for (const { path } of files.filter((f) => /\.(js|d\.ts)$/.test(f.path))) {
        const text = readFileSync(join(consumer, "node_modules", manifest.name, path), "utf8");
        expect(text, `${manifest.name}/${path}`).not.toMatch(/\.\.\/\.\.\/(\.\.\/)?generated\//);
      }
    }
  });
});

describe("npm run pack", () => {
  it("packs a package with exactly the packages it needs: the client alone installs and loads", async () => {
    const alone = join(scratch, "client-alone");
    const installed = await installPackages(alone, ["client"]);
    expect(installed.map((p) => p.name)).toEqual(["@compute-api/spec", "@compute-api/decimal", "@compute-api/client"]);
    const { stdout } = await run(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        'const c = await import("@compute-api/client"); console.log(typeof c.createComputeClient)',
      ],
      { cwd: alone },
    );
    expect(stdout.trim()).toBe("function");
  }, 360_000);

  it("refuses a name that is no package, naming the ones there are", async () => {
    const failure = await run(process.execPath, ["--import", "tsx", "scripts/pack.ts", "clinet"], { cwd: root }).catch(
      (e) => e,
    );
    expect(failure.code).toBe(2);
    expect(failure.stderr).toMatch(/no package "clinet"; one of .*client/);
  });
});

describe("installed from the tarballs into an empty project", () => {
  it("npx compute-stub --port 0 starts and answers a search with the key it printed; compute-gateway forwards it; compute-conformance passes it", async () => {
    const output = await start(
      ["compute-stub", "--port", "0", "--log-level", "silent", "--shutdown-grace", "500"],
      /listening on (\S+)[\s\S]*\n {2}(cak_\S+)/,
    );
    const [, url, key] = /listening on (\S+)[\s\S]*\n {2}(cak_\S+)/.exec(output)!;
    const res = await fetch(`${url}/v1/resources/search?query=train`, { headers: { authorization: `Bearer ${key}` } });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { results: unknown[] }).results.length).toBeGreaterThan(0);

    // A short grace: this process keeps its connections to the gateway idle, which a drain keeps that long.
    const gateway = await start(
      ["compute-gateway", "--upstream", url!, "--port", "0", "--shutdown-grace", "500"],
      /"msg":"compute-gateway listening"/,
    );
    const gatewayUrl = /"url":"([^"]+)"/.exec(gateway)?.[1];
    const through = await fetch(`${gatewayUrl}/v1/resources/search?query=train`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(through.status).toBe(200);
    expect(await through.json()).toEqual(
      await (
        await fetch(`${url}/v1/resources/search?query=train`, { headers: { authorization: `Bearer ${key}` } })
      ).json(),
    );

    const { stdout } = await run(
      "npx",
      ["--offline", "compute-conformance", "--base-url", url!, "--api-key", key!, "--runs", "5", "--rate", "1000"],
      { cwd: consumer },
    );
    expect(stdout).toMatch(/every check passed/);
    // A bound for a hang: three commands started through npx and a conformance run over every operation, which took
    // 120 s at a load average of 20 with the suite's other files running beside it.
  }, 300_000);

  it("npx compute-stub, compute-gateway and compute-conformance --version answer without the registry", async () => {
    const commands = ["compute-stub", "compute-gateway", "compute-conformance"];
    const answers = await Promise.all(
      commands.map((command) => run("npx", ["--offline", command, "--version"], { cwd: consumer })),
    );
    expect(answers.map(({ stdout }) => stdout.trim())).toEqual(commands.map(() => "1.0.0"));
  });

  // The README's instructions name the scoped package, as a host's configuration does outside such a project too.
  it("npx -y @compute-api/mcp and npx -p @compute-api/mcp compute-mcp answer without the registry", async () => {
    const [help, version] = await Promise.all([
      run("npx", ["--offline", "-y", "@compute-api/mcp", "--help"], { cwd: consumer }),
      run("npx", ["--offline", "-p", "@compute-api/mcp", "compute-mcp", "--version"], { cwd: consumer }),
    ]);
    expect(help.stdout).toMatch(/^Usage: compute-mcp /);
    expect(version.stdout.trim()).toBe("1.0.0");
  });

  it("the client's and the server kit's first snippets type-check in a project set up as their READMEs say", async () => {
    const files: string[] = [];
    let tsconfig: string | undefined;
    for (const name of ["client", "server"]) {
      const readme = readFileSync(join(consumer, `node_modules/@compute-api/${name}/README.md`), "utf8");
      // The README's tsconfig.json, and the first TypeScript snippet after it.
      const setup = /```json tsconfig\.json\n([\s\S]*?)```/.exec(readme);
      const snippet = setup && /```ts\n([\s\S]*?)```/.exec(readme.slice(setup.index));
      expect(setup, `${name}'s README gives a tsconfig.json`).not.toBeNull();
      expect(snippet, `${name}'s README has a snippet after it`).not.toBeNull();
      if (tsconfig !== undefined) expect(setup?.[1], "the two READMEs give one tsconfig.json").toBe(tsconfig);
      tsconfig = setup?.[1] ?? "";
      writeFileSync(join(consumer, `readme-${name}.ts`), snippet?.[1] ?? "");
      files.push(`readme-${name}.ts`);
    }
    const { compilerOptions } = JSON.parse(tsconfig ?? "{}") as { compilerOptions: Record<string, unknown> };
    writeFileSync(
      join(consumer, "tsconfig.readme.json"),
      JSON.stringify({ compilerOptions: { ...compilerOptions, noEmit: true }, files }),
    );
    const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
    const result = await run(process.execPath, [tsc, "-p", "tsconfig.readme.json"], { cwd: consumer }).then(
      () => "",
      (error: { stdout: string }) => error.stdout,
    );
    // The consumer's package.json says "type": "module", as the READMEs ask.
    expect(JSON.parse(readFileSync(join(consumer, "package.json"), "utf8")).type).toBe("module");
    expect(result).toBe("");
  }, 300_000);

  // The two resolutions side by side: each is a tsc process of its own.
  it.concurrent.each(["nodenext", "bundler"])(
    "a strict TypeScript consumer type-checks with skipLibCheck off and %s resolution",
    async (resolution) => {
      writeFileSync(
        join(consumer, `tsconfig.${resolution}.json`),
        JSON.stringify({
          compilerOptions: {
            strict: true,
            skipLibCheck: false,
            noEmit: true,
            target: "ES2022",
            lib: ["ES2023", "DOM"],
            types: ["node"],
            ...(resolution === "nodenext"
              ? { module: "NodeNext", moduleResolution: "NodeNext" }
              : { module: "ESNext", moduleResolution: "Bundler" }),
          },
          files: ["consumer.ts"],
        }),
      );
      const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
      const result = await run(process.execPath, [tsc, "-p", `tsconfig.${resolution}.json`], { cwd: consumer }).then(
        () => "",
        (error: { stdout: string }) => error.stdout,
      );
      expect(result).toBe("");
    },
    // A bound for a hang: two tsc processes at once, each reading every declaration the packages and @types/node
    // hold, took 100 s each at a load average of 17.
    300_000,
  );
});

describe("in this repository", () => {
  it.each([
    ["compute-stub", "packages/stub-server/bin/compute-stub.js"],
    ["compute-gateway", "packages/gateway/bin/compute-gateway.js"],
    ["compute-conformance", "packages/conformance/bin/compute-conformance.js"],
    ["compute-mcp", "packages/mcp/bin/compute-mcp.js"],
    ["compute-postgres", "examples/postgres/bin/compute-postgres.js"],
  ])(
    "%s is linked by npm install to a committed file, so the first install of a fresh clone links it",
    (command, file) => {
      const link = join(root, "node_modules/.bin", command);
      expect(existsSync(link)).toBe(true);
      expect(realpathSync(resolve(dirname(link), readlinkSync(link)))).toBe(realpathSync(join(root, file)));
    },
  );
});
