/**
 * `npm run check:breaking` fails, readably, on a deliberately breaking edit, and lets it pass with a major version.
 * That it passes on the current spec is `npm test`'s own `check:breaking` step, not repeated here.
 */
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "../..");
type Doc = {
  info: { version: string };
  components: { schemas: Record<string, { properties: Record<string, unknown>; required?: string[] }> };
};

let dir: string;
let spec: Doc;

/** Runs the check against a current spec written to a temporary file. */
async function check(current: Doc): Promise<{ code: number; output: string }> {
  const file = path.join(dir, `current-${Math.random().toString(36).slice(2)}.json`);
  await writeFile(file, JSON.stringify(current));
  return new Promise((resolve) => {
    execFile(
      path.join(root, "node_modules", ".bin", "tsx"),
      ["scripts/check-breaking.ts", "--current", file],
      { cwd: root },
      (error, stdout, stderr) =>
        resolve({ code: typeof error?.code === "number" ? error.code : 0, output: stdout + stderr }),
    );
  });
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "breaking-test-"));
  spec = JSON.parse(await readFile(path.join(root, "generated", "openapi.json"), "utf8")) as Doc;
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe("check:breaking", () => {
  it("fails on a removed response field, a new required request field and a removed request enum value", async () => {
    const broken = structuredClone(spec);
    delete broken.components.schemas.Cluster!.properties.startScript;
    broken.components.schemas.CreateApiKeyRequest!.properties.owner = {
      type: "string",
      maxLength: 10,
      pattern: "^[a-z]+$",
      description: "Owner.",
    };
    broken.components.schemas.CreateApiKeyRequest!.required!.push("owner");
    const powerStates = broken.components.schemas.MachinePowerState as unknown as { enum: string[] };
    powerStates.enum = powerStates.enum.filter((v) => v !== "REBOOTING");
    const { code, output } = await check(broken);
    expect(code).toBe(1);
    expect(output).toMatch(/cannot remove response property 'startScript'/);
    expect(output).toMatch(/cannot add a required request property 'owner'/);
    expect(output).toMatch(/cannot remove enum option 'REBOOTING'/);
    expect(output).toMatch(/raise info\.version in openapi\/openapi\.yaml to 2\.0\.0/);
  });

  it("allows the same change when the major version is raised", async () => {
    const broken = structuredClone(spec);
    delete broken.components.schemas.ClusterMachine!.properties.architecture;
    broken.info.version = "2.0.0";
    const { code, output } = await check(broken);
    expect(output).toMatch(/allowed because the major version was raised to 2\.0\.0/);
    expect(code).toBe(0);
  });
});
