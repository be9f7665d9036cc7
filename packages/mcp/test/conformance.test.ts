/**
 * The MCP conformance suite (@modelcontextprotocol/conformance, a client no one here wrote) against
 * `compute-mcp --http` on loopback without a client token (the DNS rebinding scenario is for exactly that server):
 * its active server scenarios, with the ones that do not apply to a tools-only, stateless server listed, each with
 * why, in conformance-expected-failures.yaml. The suite needs Node 22 or later, so it runs on Node 24 (package.json's
 * config.node24, fetched from the npm registry the first time).
 */
import { execFile } from "node:child_process";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { nodeBinary } from "@compute-api/test-support/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type HttpMcp, keys, killStarted, startHttp, startStub, type TestStub } from "./support.js";

const conformanceBin = path.join(
  path.dirname(createRequire(import.meta.url).resolve("@modelcontextprotocol/conformance/package.json")),
  "dist",
  "index.js",
);
const baseline = fileURLToPath(new URL("./conformance-expected-failures.yaml", import.meta.url));

describe("the MCP conformance suite's server scenarios", () => {
  let node24: string;
  let stub: TestStub;
  let server: HttpMcp;
  // Bound for a first fetch of Node 24 (a 57 MB tarball) on a slow line.
  beforeAll(async () => {
    node24 = await nodeBinary(24);
    stub = await startStub();
    server = await startHttp(stub.url, keys.alice);
  }, 10 * 60_000);
  afterAll(async () => {
    await server?.close();
    await stub?.close();
    killStarted();
  });

  it("passes every scenario that applies, and fails only those listed as not applying", async () => {
    const { code, output } = await new Promise<{ code: number; output: string }>((resolve) => {
      execFile(
        node24,
        [conformanceBin, "server", "--url", server.url, "--expected-failures", baseline],
        { timeout: 120_000, env: { ...process.env, NO_COLOR: "1" } },
        (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, output: stdout + stderr }),
      );
    });
    expect(output).toMatch(/Baseline check passed: all failures are expected/);
    for (const scenario of [
      "server-initialize",
      "ping",
      "tools-list",
      "server-sse-multiple-streams",
      "dns-rebinding-protection",
    ]) {
      expect(output).toMatch(new RegExp(`✓ ${scenario}: [1-9]\\d* passed, 0 failed`));
    }
    expect(code).toBe(0);
  }, 450_000);
});
