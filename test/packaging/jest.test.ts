/**
 * The stub's Jest examples (docs/stub-server.md#jest, files in packages/stub-server/examples/testing/) in a fresh
 * project made from the tarballs that `npm run pack` makes, with Jest installed from the registry at a pinned
 * version: the CommonJS test under a plain `npx jest` (require() takes the CommonJS build of
 * `@compute-api/stub-server/testing`) and the ES-module test under `NODE_OPTIONS=--experimental-vm-modules`, each on
 * this machine's Node.
 */
import { execFile } from "node:child_process";
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { packInto, withDependencies } from "../../scripts/pack.js";

const run = promisify(execFile);
/** The Jest the examples are tested with (Jest 30: `exports` conditions, .cjs and .mjs tests by default). */
const jestVersion = "30.5.2";
const examples = fileURLToPath(new URL("../../packages/stub-server/examples/testing/", import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), "compute-api-jest-"));
const project = join(scratch, "project");

beforeAll(async () => {
  const tarballs = await packInto(withDependencies(["stub-server"]), join(scratch, "tarballs"));
  await run("mkdir", ["-p", project]);
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "jest-consumer", private: true }));
  for (const file of ["jest.config.cjs", "stub.test.cjs", "stub.test.mjs"])
    copyFileSync(join(examples, file), join(project, file));
  const install = ["install", "--no-audit", "--no-fund", "--save-exact", "--ignore-scripts"];
  await run("npm", [...install, ...tarballs.map((t) => t.file), `jest@${jestVersion}`], {
    cwd: project,
    timeout: 600_000,
  });
}, 900_000);

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Runs the project's Jest on one test file; resolves to its exit code and output. */
async function jest(file: string, env: NodeJS.ProcessEnv = {}): Promise<{ code: number; output: string }> {
  const { NODE_OPTIONS: _, ...inherited } = process.env;
  try {
    const { stdout, stderr } = await run("npx", ["--no-install", "jest", "--ci", file], {
      cwd: project,
      env: { ...inherited, ...env },
      timeout: 240_000,
    });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? 1, output: `${failed.stdout}${failed.stderr}` };
  }
}

describe("the stub's testing helper under Jest, from the tarballs", () => {
  it("a CommonJS test requires it and passes under a plain `npx jest`", async () => {
    const { code, output } = await jest("stub.test.cjs");
    expect(output).toMatch(/Tests:\s+3 passed, 3 total/);
    expect(code).toBe(0);
  }, 300_000);

  it("an ES-module test imports it and passes with --experimental-vm-modules", async () => {
    const { code, output } = await jest("stub.test.mjs", { NODE_OPTIONS: "--experimental-vm-modules" });
    expect(output).toMatch(/Tests:\s+2 passed, 2 total/);
    expect(code).toBe(0);
  }, 300_000);

  it("the CommonJS build answers require() outside Jest too, with the ESM build's functions", async () => {
    const script = `const t = require("@compute-api/stub-server/testing");
console.log(JSON.stringify(Object.keys(t).sort()));`;
    const { stdout } = await run(process.execPath, ["-e", script], { cwd: project, timeout: 60_000 });
    expect(JSON.parse(stdout)).toEqual(["connectStub", "sessionHeader", "startStub"]);
  });

  it("the CommonJS startStub rejects a bad data set with the stub's own message, and leaves no process", async () => {
    const script = `require("@compute-api/stub-server/testing").startStub({ fixtures: { users: "nope" } })
  .then(() => console.log("started"), (error) => console.log(error.message));`;
    const { stdout } = await run(process.execPath, ["-e", script], { cwd: project, timeout: 120_000 });
    expect(stdout).toContain("the data set cannot be served");
    expect(stdout).toContain("/users: must be array");
    expect(stdout).not.toMatch(/started|\n\s+at /);
  });
});
