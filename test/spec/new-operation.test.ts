/**
 * An operation added to openapi/ flows with no hand-written line elsewhere (issue 36, item 5): a copy of the
 * repository gets the three operations of test/spec/new-operations (a GET of one disk by path parameters, a list of
 * images with query parameters, a DELETE of a network answering 204), written as openapi/README.md says; then
 * `npm run build` and `npm run typecheck` run in the copy, and new-operations-probe.ts runs there on the copy's
 * built packages. One built copy serves every case. Slow by nature (a whole build): minutes on a busy machine.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addOperations, copyRepository } from "./support/repository-copy.js";

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, "../..");
const added = ["getDisk", "listImages", "deleteNetwork"];

/** A file of the copy that uses the new paths through the copy's typed client: it must type-check. */
const clientUse = `import { createComputeClient } from "@compute-api/client";

const client = createComputeClient({ baseUrl: "http://127.0.0.1:9", apiKey: "cak_types" });
const disk = await client.GET("/v1/projects/{projectId}/disks/{diskId}", {
  params: { path: { projectId: "proj-alpha", diskId: "disk-1" } },
});
export const size: number | undefined = disk.data?.sizeGib;
const images = await client.GET("/v1/projects/{projectId}/images", {
  params: { path: { projectId: "proj-alpha" }, query: { pageSize: 5, nameContains: "ubuntu" } },
});
export const first: string | undefined = images.data?.images[0]?.id;
await client.DELETE("/v1/projects/{projectId}/networks/{networkId}", {
  params: { path: { projectId: "proj-alpha", networkId: "net-1" } },
});
// @ts-expect-error a path the spec does not have
await client.GET("/v1/projects/{projectId}/widgets", { params: { path: { projectId: "proj-alpha" } } });
`;

/** What a command in the copy did. */
interface Ran {
  code: number;
  out: string;
}

/** Runs an npm script (or another command) in the copy, never throwing on its exit code. */
async function inCopy(copy: string, command: string, args: string[]): Promise<Ran> {
  try {
    const { stdout, stderr } = await run(command, args, { cwd: copy, maxBuffer: 64 * 1024 * 1024, env: process.env });
    return { code: 0, out: stdout + stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof failed.code === "number" ? failed.code : 1, out: `${failed.stdout}${failed.stderr}` };
  }
}

let copy: string;
let build: Ran;
let typecheck: Ran;
let probe: Record<string, unknown>;

beforeAll(async () => {
  copy = mkdtempSync(path.join(tmpdir(), "compute-api-new-operation-"));
  copyRepository(root, copy);
  addOperations(path.join(import.meta.dirname, "new-operations"), copy);
  writeFileSync(path.join(copy, "test", "new-operation-client.ts"), clientUse);
  build = await inCopy(copy, "npm", ["run", "build"]);
  if (build.code !== 0) return;
  typecheck = await inCopy(copy, "npm", ["run", "typecheck"]);
  const probed = await inCopy(copy, "npx", ["tsx", "test/spec/support/new-operations-probe.ts"]);
  try {
    probe = JSON.parse(probed.out.trim().split("\n").at(-1) ?? "");
  } catch {
    probe = { failed: probed.out };
  }
}, 1_200_000);
afterAll(() => {
  if (copy) rmSync(copy, { recursive: true, force: true });
});

/** The files `tsc` reports errors in. */
const filesWithErrors = (out: string) => [...new Set([...out.matchAll(/^(\S+)\(\d+,\d+\): error/gm)].map((m) => m[1]))];

describe("three operations added to openapi/ of a copy, and nothing else", () => {
  it("build: lint, generated/, every package", () => {
    expect(build.code, build.out).toBe(0);
  });

  it("type-check everywhere but in the Postgres example, which must implement them; the client knows the paths", () => {
    const files = filesWithErrors(typecheck.out);
    expect(
      files.filter((file) => !file?.startsWith("examples/postgres/")),
      typecheck.out,
    ).toEqual([]);
    expect(typecheck.out).toMatch(
      /examples\/postgres\/src\/.*missing the following properties.*getDisk, listImages, deleteNetwork/,
    );
  });

  it("are answered by the stub from their examples: 200 with the first example, 204 without a body", () => {
    expect(probe.failed).toBeUndefined();
    expect(probe.startLine).toMatch(/answered from the spec's examples: getDisk, listImages, deleteNetwork/);
    expect(probe.getDisk).toMatchObject({ status: 200 });
    expect(JSON.parse((probe.getDisk as { body: string }).body)).toMatchObject({ id: "disk-alpha-01", sizeGib: 100 });
    expect(probe.listImages).toMatchObject({ status: 200 });
    expect(probe.deleteNetwork).toEqual({ status: 204, body: "" });
    expect(probe.withoutKey).toBe(401);
  });

  it("are demanded by the server kit, which refuses to start naming each", () => {
    expect(probe.serverKit).toBe(
      "handlers: no handler for the operations 'getDisk', 'listImages', 'deleteNetwork': every operation of the spec needs one",
    );
  });

  it("get valid requests from the conformance runner: the stub passes, a backend answering 500 fails on each", () => {
    expect(probe.conformanceStub).toEqual({ passed: true, failed: [] });
    for (const operationId of added)
      expect((probe.validRequests as Record<string, number>)[operationId]).toBeGreaterThan(0);
    const failing = probe.conformanceFailing as { passed: boolean; failed: string[] };
    expect(failing.passed).toBe(false);
    for (const operationId of added) expect(failing.failed).toContain(`not_a_server_error ${operationId}`);
    expect(failing.failed.filter((check) => !added.includes(check.split(" ")[1] ?? ""))).toEqual([]);
  });
});
