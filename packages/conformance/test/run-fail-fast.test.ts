/**
 * A run that cannot be made stops at once, with one line: nothing listening, a host that does not resolve, a base
 * URL whose search is not there. A backend that goes away during a run ends it there, unshrunk. A key that sees
 * nothing is a warning in the report, not a passing check.
 */

import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseSearchQuery } from "@compute-api/rules";
import {
  createComputeServer,
  type Handlers,
  type Listening,
  listen,
  notFound,
  permissionDenied,
} from "@compute-api/server";
import { everyOperation } from "@compute-api/test-support";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { runCli } from "../src/cli.js";
import { runConformance } from "../src/run.js";
import { naiveKey, startNaiveBackend } from "./naive-backend.js";

const scratch = mkdtempSync(join(tmpdir(), "compute-conformance-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
afterEach(() => vi.unstubAllEnvs());

/** Runs the command and collects what it prints. */
async function run(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  const code = await runCli(argv, { stdout: (t) => (out += t), stderr: (t) => (err += t) });
  return { code, out, err };
}

/** A 127.0.0.1 port nothing listens on: one that was just given out and closed. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe("a run that cannot be made", () => {
  it("stops at once when nothing listens: one line, exit 1, no report, nothing shrunk", async () => {
    const port = await closedPort();
    vi.stubEnv("COMPUTE_API_KEY", "k");
    const { code, out, err } = await run("--base-url", `http://127.0.0.1:${port}`);
    expect(code).toBe(1);
    expect(err).toBe(
      `compute-conformance: no answer to a search: connect ECONNREFUSED 127.0.0.1:${port}; nothing was checked\n`,
    );
    expect(out.trim().split("\n")).toHaveLength(1);
  });

  it("stops after its first search when every connection is closed unanswered: one connection, tried once", async () => {
    let connections = 0;
    const server = createServer();
    server.on("connection", (socket) => {
      connections++;
      socket.destroy();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as { port: number };
    vi.stubEnv("COMPUTE_API_KEY", "k");
    try {
      const { code, err } = await run("--base-url", `http://127.0.0.1:${port}`);
      expect(code).toBe(1);
      expect(err).toMatch(/^compute-conformance: no answer to a search: .*; nothing was checked\n$/);
      expect(connections).toBe(1);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("stops at once when the host does not resolve", async () => {
    vi.stubEnv("COMPUTE_API_KEY", "k");
    const { code, err } = await run("--base-url", "http://conformance-no-such-host.invalid", "--timeout-ms", "3000");
    expect(code).toBe(1);
    // Where no resolver answers at all, the lookup outlasts the timeout: the socket is still connecting.
    expect(err).toMatch(
      /^compute-conformance: no answer to a search: (getaddrinfo (ENOTFOUND|EAI_AGAIN) conformance-no-such-host\.invalid|could not connect within 3000 ms); nothing was checked\n$/,
    );
  });

  it("stops at once when search is not at the base URL (404)", async () => {
    const backend = await startNaiveBackend();
    try {
      vi.stubEnv("COMPUTE_API_KEY", naiveKey);
      const { code, err } = await run("--base-url", `${backend.url}/api`);
      expect(code).toBe(1);
      expect(err).toMatch(
        /^compute-conformance: the backend answered 404 to a search .* is the base URL the interface's root, with its path prefix if any\? Nothing was checked\n$/,
      );
    } finally {
      await backend.close(0);
    }
  });
});

describe("--writes that cannot be made", () => {
  let backend: Listening;
  afterAll(() => backend?.close(0));
  it.each([
    [
      "a project the key does not see",
      ["--project", "proj-nowhere", "--machine", "cm-naive-1"],
      /--writes needs --project to name a project that a type:project search shows the key, .*: pass one the key sees as --project, or give the key's user access to proj-nowhere in the backend; nothing was written/,
    ],
    [
      "a machine no cluster lists",
      ["--project", "proj-naive", "--machine", "cm-nowhere"],
      /--writes needs --machine to be listed in the machines of a cluster that the search "type:cluster proj-naive" shows, .*machine cm-nowhere is not \(clusters of proj-naive: cl-naive: cm-naive-1, cm-naive-2\): pass a listed machine as --machine, or make the backend list each cluster's machines, .*; nothing was written/,
    ],
  ])("says what to change for %s, and writes nothing", async (_name, flags, message) => {
    backend ??= await startNaiveBackend();
    vi.stubEnv("COMPUTE_API_KEY", naiveKey);
    const { code, err } = await run("--base-url", backend.url, "--writes", ...flags);
    expect(code).toBe(1);
    expect(err).toMatch(message);
    expect(err.trim().split("\n")).toHaveLength(1);
  });
});

describe("a backend that goes away during the run", () => {
  it("ends the run there, reports the failure and shrinks nothing", async () => {
    const backend = await startNaiveBackend();
    let closing: Promise<void> | undefined;
    const report = await runConformance({
      baseUrl: backend.url,
      apiKey: naiveKey,
      runs: 50,
      rate: 1000,
      seed: 1,
      onProgress: ({ requests }) => {
        if (requests >= 20) closing ??= backend.close(0);
      },
    });
    await closing;
    expect(report.passed).toBe(false);
    expect(report.requests).toBeLessThan(30);
    expect(report.notes.join("\n")).toMatch(
      /the backend could not be reached after \d+ requests \(connect ECONNREFUSED [^)]+\): the run stopped there, and nothing was shrunk/,
    );
    const failure = report.results.find((r) => r.check === "not_a_server_error" && r.failed > 0)?.failure;
    expect(failure?.message).toMatch(/^no answer: /);
    expect(failure?.shrunk).toBeUndefined();
  });
});

describe("a key that sees nothing", () => {
  it("is a warning in the report and the JUnit report, not a passing search_access", async () => {
    const server = await createComputeServer<object>({
      authenticate: (token) => (token === "cak_nobody" ? {} : undefined),
      handlers: everyOperation<Handlers<object>>({
        searchResources: ({ query }) => {
          parseSearchQuery(query.query);
          return { results: [] };
        },
        updateClusterMachine: ({ path }) => {
          throw notFound(`cluster machine '${path.id}' not found in project '${path.projectId}'`);
        },
        createApiKey: () => {
          throw permissionDenied("permission denied: this user may not create API keys");
        },
      }),
    });
    const backend = await listen(server.app, { port: 0, host: "127.0.0.1" });
    try {
      const junit = join(scratch, "nobody.xml");
      const { code, out } = await run(
        ...["--base-url", backend.url, "--api-key", "cak_nobody", "--runs", "3", "--rate", "1000", "--junit", junit],
      );
      expect(out).toMatch(
        /\nwarning: the key sees no project and no billing account .*: run with the key of a user who has access\n/,
      );
      expect(out).toMatch(/every check passed \(\d+ checks by operation\), with 1 warning above\./);
      expect(out).not.toMatch(/\nsearch_(access|matching|score|order) /);
      expect(code).toBe(0);
      expect(readFileSync(junit, "utf8")).toMatch(
        /<testsuite name="warnings" tests="1" failures="0" skipped="1">\s*<testcase classname="warnings" name="warning 1">\s*<skipped message="the key sees no project/,
      );
    } finally {
      await backend.close(0);
    }
  });
});
