/**
 * `@compute-api/stub-server/testing` in other people's suites: startStub and connectStub against the real stub, and
 * the README's "In your test suite" examples run as written — the vitest files by a vitest of their own, the Jest
 * global setup and teardown as Jest calls them, the admin API's curl lines by bash — each block of the README
 * being the very file or lines that run here.
 */
import { execFile, spawn } from "node:child_process";
import { once } from "node:events";
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { freePort, killGroup } from "@compute-api/test-support";
import { afterEach, describe, expect, it } from "vitest";
import { connectStub, type StubHandle, startStub } from "../src/testing.js";

const run = promisify(execFile);
const packageDir = fileURLToPath(new URL("..", import.meta.url));
const repository = join(packageDir, "..", "..");
const examples = join(packageDir, "examples", "testing");
/** The README and its reference page (docs/stub-server.md), which holds the Jest files. */
const readme = ["README.md", "../../docs/stub-server.md"]
  .map((file) => readFileSync(join(packageDir, file), "utf8"))
  .join("\n");

const started: StubHandle[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((s) => s.close()));
});

/** The fenced block that follows `<!-- marker -->` in the README or its reference page. */
function blockAfter(marker: string): string {
  const at = readme.indexOf(`<!-- ${marker} -->`);
  if (at < 0) throw new Error(`the README has no <!-- ${marker} -->`);
  const match = /```[a-z]*\n([\s\S]*?)```/.exec(readme.slice(at));
  if (!match?.[1]) throw new Error(`no code block after <!-- ${marker} -->`);
  return match[1];
}

/** Switches cm-alpha-01 on (the built-in data has it off). */
const patchOn = (url: string, key: string) =>
  fetch(`${url}/v1/projects/proj-alpha/cluster-machines/cm-alpha-01`, {
    method: "PATCH",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ powerState: "ON" }),
  });

describe("startStub", () => {
  it("listens on 127.0.0.1 and a free port, with a key that works, and drives the admin API", async () => {
    const stub = await startStub();
    started.push(stub);
    expect(stub.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(stub.apiKey).toMatch(/^cak_/);
    const first = await stub.snapshot();
    expect((await patchOn(stub.url, stub.apiKey)).status).toBe(200);
    expect(await stub.requests({ method: "PATCH" })).toHaveLength(1);
    expect(await stub.snapshot()).not.toEqual(first);
    expect(await stub.reset()).toMatchObject({ userIds: ["alice", "bob", "carol", "dave", "erin"] });
    expect(await stub.snapshot()).toEqual(first);
    await patchOn(stub.url, stub.apiKey);
    await stub.restore(first);
    expect(await stub.snapshot()).toEqual(first);
    await stub.clearRequests();
    expect(await stub.requests()).toEqual([]);
    expect((await stub.load({ generate: 20, seed: 2 })).resourceCount).toBe(20);
    expect((await stub.faults({ latency: "1-2" })).latency).toBe("1-2");
  });

  it("takes the stub's options (its data, its key) and stops listening at close", async () => {
    const stub = await startStub({
      apiKey: "cak_my-own-key",
      fixtures: { users: [{ id: "me", projectIds: [], billingAccountIds: [] }] },
    });
    const search = () =>
      fetch(`${stub.url}/v1/resources/search?query=a`, { headers: { authorization: "Bearer cak_my-own-key" } });
    expect((await search()).status).toBe(200);
    await stub.close();
    await expect(search()).rejects.toThrow();
  });

  it("rejects with the admin API's error body in the message", async () => {
    const stub = await startStub();
    started.push(stub);
    await expect(stub.faults({ faults: "200=1%" })).rejects.toThrow(
      /PATCH \/__stub\/faults answered 400: .*body\.faults/,
    );
  });
});

describe("connectStub", () => {
  it("drives a stub that runs elsewhere, sending its admin token", async () => {
    const { startServer } = await import("../src/server.js");
    const running = await startServer({
      port: 0,
      admin: { token: "the-admin-token" },
      apiKeys: { alice: "cak_elsewhere" },
    });
    try {
      const withToken = connectStub(running.url, { apiKey: "cak_elsewhere", adminToken: "the-admin-token" });
      expect((await withToken.reset()).resourceCount).toBeGreaterThan(0);
      const without = connectStub(running.url, { apiKey: "cak_elsewhere" });
      await expect(without.reset()).rejects.toThrow(/answered 401/);
    } finally {
      await running.close();
    }
  });
});

describe("the README's examples, run as written", () => {
  it.each([
    ["file: examples/testing/vitest.global-setup.ts", "vitest.global-setup.ts"],
    ["file: examples/testing/stub.test.ts", "stub.test.ts"],
    ["file: examples/testing/in-one-file.test.ts", "in-one-file.test.ts"],
    ["file: examples/testing/answers.test.ts", "answers.test.ts"],
    ["file: examples/testing/another-file.test.ts", "another-file.test.ts"],
    ["file: examples/testing/jest.global-setup.mjs", "jest.global-setup.mjs"],
    ["file: examples/testing/jest.global-teardown.mjs", "jest.global-teardown.mjs"],
    ["file: examples/testing/jest.config.cjs", "jest.config.cjs"],
    ["file: examples/testing/stub.test.cjs", "stub.test.cjs"],
    ["file: examples/testing/stub.test.mjs", "stub.test.mjs"],
  ])("the README shows %s as it is", (marker, file) => {
    expect(blockAfter(marker)).toBe(readFileSync(join(examples, file), "utf8"));
  });

  it("the vitest examples pass under a vitest of their own, the global setup's stub shared by files in parallel in sessions", async () => {
    const config = join(mkdtempSync(join(tmpdir(), "stub-vitest-")), "vitest.config.ts");
    // As in a project of your own, except that here the packages resolve to their sources.
    // The repository's own vitest set-up (its packages resolve to their sources), on the examples' folder instead of
    // the repository's two projects.
    writeFileSync(
      config,
      `import root from ${JSON.stringify(join(repository, "vitest.config.ts"))};
export default {
  ...root,
  test: {
    ...root.test,
    projects: undefined,
    root: ${JSON.stringify(examples)},
    include: ["*.test.ts"],
    globalSetup: ["./vitest.global-setup.ts"],
    typecheck: { enabled: false },
  },
};
`,
    );
    const { stdout } = await run(
      process.execPath,
      [join(repository, "node_modules", "vitest", "vitest.mjs"), "run", "--config", config, "--reporter", "json"],
      { cwd: repository, timeout: 720_000, maxBuffer: 16 * 1024 * 1024, env: { ...process.env, CI: "true" } },
    ).catch((error: { stdout?: string; stderr?: string }) => {
      throw new Error(`the examples failed:\n${error.stdout ?? ""}\n${error.stderr ?? ""}`);
    });
    const report = JSON.parse(stdout.slice(stdout.indexOf("{"))) as {
      numPassedTests: number;
      numFailedTests: number;
    };
    expect({ passed: report.numPassedTests, failed: report.numFailedTests }).toEqual({ passed: 7, failed: 0 });
  }, 900_000);

  it("the Jest global setup starts a stub the tests reach through process.env, and the teardown stops it", async () => {
    const setup = await import(join(examples, "jest.global-setup.mjs"));
    const teardown = await import(join(examples, "jest.global-teardown.mjs"));
    await setup.default();
    const { STUB_URL: url = "", STUB_API_KEY: key = "" } = process.env;
    try {
      const stub = connectStub(url, { apiKey: key });
      expect((await patchOn(stub.url, stub.apiKey)).status).toBe(200);
      expect((await stub.requests())[0]?.operationId).toBe("updateClusterMachine");
    } finally {
      await teardown.default();
      delete process.env.STUB_URL;
      delete process.env.STUB_API_KEY;
    }
    await expect(fetch(`${url}/healthz`)).rejects.toThrow();
  });

  it("the admin API's curl lines run against a stub, each answered 2xx", async () => {
    const stub = await startStub();
    started.push(stub);
    await patchOn(stub.url, stub.apiKey);
    const cwd = mkdtempSync(join(tmpdir(), "stub-curl-"));
    const { stdout } = await run("bash", ["-euo", "pipefail", "-c", blockAfter("run: admin")], {
      cwd,
      env: { ...process.env, STUB: stub.url },
      timeout: 180_000,
    });
    expect(stdout).toContain('"endpoints"');
    expect(stdout).toContain('"operationId":"updateClusterMachine"');
    expect(JSON.parse(readFileSync(join(cwd, "snapshot.json"), "utf8")).users).toHaveLength(5);
    expect((await stub.faults()).faults).toBeNull();
  });

  it("the recording's lines run: the gateway records a backend, and the stub serves the recording alike", async () => {
    const backend = await startStub();
    started.push(backend);
    // The commands as npm links them, here from their sources; the README's ports replaced by free ones.
    const bin = mkdtempSync(join(tmpdir(), "stub-bin-"));
    const tsx = createRequire(import.meta.url).resolve("tsx");
    for (const [name, source] of [
      ["compute-gateway", "packages/gateway/src/bin.ts"],
      ["compute-stub", "packages/stub-server/src/bin.ts"],
    ] as const) {
      writeFileSync(
        join(bin, name),
        `#!/bin/sh\nexec "${process.execPath}" --conditions=@compute-api/source --import "${tsx}" "${join(repository, source)}" "$@"\n`,
      );
      chmodSync(join(bin, name), 0o755);
    }
    const [gatewayPort, stubPort] = [await freePort(), await freePort()];
    const script = blockAfter("run: record")
      .replaceAll("8080", String(gatewayPort))
      .replaceAll("4010", String(stubPort));
    const cwd = mkdtempSync(join(tmpdir(), "stub-record-"));
    // In a process group of its own, killed at the end: a failed line leaves no command running.
    const shell = spawn("bash", ["-euo", "pipefail", "-c", script], {
      cwd,
      env: { ...process.env, PATH: `${bin}:${process.env.PATH}`, BACKEND: backend.url, KEY: backend.apiKey },
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    shell.stdout.setEncoding("utf8").on("data", (text: string) => (stdout += text));
    shell.stderr.setEncoding("utf8").on("data", (text: string) => (stderr += text));
    const timer = setTimeout(() => killGroup(shell.pid ?? 0), 540_000);
    try {
      const [code] = await once(shell, "exit");
      expect(code, stderr).toBe(0);
    } finally {
      clearTimeout(timer);
      killGroup(shell.pid ?? 0);
    }
    const direct = await fetch(`${backend.url}/v1/resources/search?query=type:cluster`, {
      headers: { authorization: `Bearer ${backend.apiKey}` },
    });
    // Alone on a line: the stub's answer (the commands print their JSON log lines too).
    const answer = stdout.split("\n").find((line) => line.startsWith('{"results"'));
    expect(JSON.parse(answer ?? "null")).toEqual(await direct.json());
    expect(readFileSync(join(cwd, "my-account.yaml"), "utf8")).not.toContain(backend.apiKey);
  }, 720_000);
});
