/**
 * The conformance runner against real backends: the stub directly and through the gateway (every check passes,
 * with and without writes, and the written machine is as it was afterwards), and a deliberately broken backend
 * whose every misbehaviour is reported by the right check, with a curl line and a shrunk counterexample.
 */

import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Server, type ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createGateway, type Gateway } from "@compute-api/gateway";
import { createLogger } from "@compute-api/runtime";
import { type RunningStub, startServer } from "@compute-api/stub-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../src/cli.js";
import { runConformance } from "../src/run.js";

const key = "cak_conformance-test-alice";
const servers: Server[] = [];
let stub: RunningStub;
let gateway: Gateway;
let gatewayUrl: string;
let broken: string;
const scratch = mkdtempSync(join(tmpdir(), "compute-conformance-"));

/** Listens a request listener on an ephemeral 127.0.0.1 port. */
async function serve(listener: Parameters<typeof createServer>[1]): Promise<string> {
  const server = createServer(listener);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
}

const json = (res: ServerResponse, status: number, body: unknown) =>
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));

/**
 * A backend that gets it wrong, each in its own way: search answers by the length of its query — a 500, a body
 * without `results`, a valid answer, or a 400 that shows its stack trace; the PATCH answers an undocumented 418;
 * the POST answers 200 to anything, broken bodies included. Keys it does check: only `key` passes.
 */
const brokenBackend = (req: import("node:http").IncomingMessage, res: ServerResponse) => {
  req.resume();
  req.on("end", () => {
    if (req.headers.authorization !== `Bearer ${key}`)
      return json(res, 401, { code: 401, message: "missing or invalid API key" });
    const url = new URL(req.url ?? "/", "http://x");
    if (req.method === "GET" && url.pathname === "/v1/resources/search") {
      const query = url.searchParams.get("query") ?? "";
      switch (query.length % 4) {
        case 0:
          return json(res, 500, { code: 500, message: "internal error" });
        case 1:
          return json(res, 200, { result: [] });
        case 2:
          return json(res, 200, { results: [] });
        default:
          return json(res, 400, {
            code: 400,
            message:
              "TypeError: Cannot read properties of undefined (reading 'split')\n    at parseQuery (/srv/app/search.js:12:19)\n    at handler (/srv/app/index.js:40:5)",
          });
      }
    }
    if (req.method === "PATCH") return json(res, 418, { code: 418, message: "I'm a teapot" });
    if (req.method === "POST" && url.pathname === "/v1/api-keys")
      return json(res, 200, { id: "anything", createTime: "2026-11-23T00:00:00Z", key: "cak_x" });
    return json(res, 404, { code: 404, message: "not found" });
  });
};

beforeAll(async () => {
  stub = await startServer({ port: 0, host: "127.0.0.1", apiKeys: { alice: key } });
  gateway = await createGateway({ upstream: stub.url, logger: createLogger({ level: "silent" }) });
  gatewayUrl = await serve(gateway.app);
  broken = await serve(brokenBackend);
});
afterAll(async () => {
  for (const server of servers) server.closeAllConnections();
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  await gateway?.close();
  await stub?.close();
  rmSync(scratch, { recursive: true, force: true });
});

/** Runs the command and collects what it prints. */
async function run(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  const code = await runCli(argv, { stdout: (t) => (out += t), stderr: (t) => (err += t) });
  return { code, out, err };
}

/** The machine as search shows it to alice. */
async function machine(): Promise<unknown> {
  const res = await fetch(`${stub.url}/v1/resources/search?query=type:cluster%20cl-train-01`, {
    headers: { authorization: `Bearer ${key}` },
  });
  const { results } = (await res.json()) as { results: { cluster: { machines: { id: string }[] } }[] };
  return results[0]?.cluster.machines.find((m) => m.id === "cm-alpha-01");
}

describe("against the stub", () => {
  it("read-only: says so first, every check passes, exit 0", async () => {
    const { code, out } = await run(
      "--base-url",
      stub.url,
      "--api-key",
      key,
      "--runs",
      "25",
      "--rate",
      "1000",
      "--seed",
      "11",
    );
    expect(out.split("\n")[0]).toMatch(
      /read-only — searches and other reads, and only writes a conforming backend refuses/,
    );
    expect(out).toMatch(/every check passed/);
    for (const check of [
      "not_a_server_error",
      "negative_data_rejection",
      "ignored_auth",
      "search_query_rules",
      "search_access",
      "search_matching",
      "search_score",
      "search_order",
      "search_resource_name",
      "cluster_totals",
      "response_schema_conformance",
    ])
      expect(out).toMatch(new RegExp(`\\n${check}\\s+searchResources\\s+[1-9]\\d*\\s+0\\n`));
    expect(code).toBe(0);
  });

  it("with writes: every check passes, and the machine's power state and price are as they were", async () => {
    const before = await machine();
    const junit = join(scratch, "stub.xml");
    const { code, out } = await run(
      "--base-url",
      stub.url,
      "--api-key",
      key,
      "--runs",
      "25",
      "--rate",
      "1000",
      "--writes",
      "--project",
      "proj-alpha",
      "--machine",
      "cm-alpha-01",
      "--junit",
      junit,
    );
    expect(out).toMatch(/every check passed/);
    for (const [check, operationId] of [
      ["price_normalization", "updateClusterMachine"],
      ["partial_update", "updateClusterMachine"],
      ["unknown_volume_rejection", "updateClusterMachine"],
      ["update_visibility", "updateClusterMachine"],
      ["api_key_uniqueness", "createApiKey"],
      ["api_key_usable", "createApiKey"],
    ])
      expect(out).toMatch(new RegExp(`\\n${check}\\s+${operationId}\\s+[1-9]\\d*\\s+0\\n`));
    expect(out).toMatch(/restored proj-alpha\/cm-alpha-01/);
    expect(code).toBe(0);
    expect(await machine()).toEqual(before);
    expect(readFileSync(junit, "utf8")).toMatch(/<testsuites name="compute-conformance" tests="\d+" failures="0"/);
  });

  it("through the gateway: every check passes", async () => {
    const { code, out } = await run("--base-url", gatewayUrl, "--api-key", key, "--seconds", "2", "--rate", "1000");
    expect(out).toMatch(/every check passed/);
    expect(code).toBe(0);
  });

  it("refuses to write to a machine it cannot read back, and writes nothing", async () => {
    const { code, err } = await run(
      "--base-url",
      stub.url,
      "--api-key",
      key,
      "--runs",
      "5",
      "--writes",
      "--project",
      "proj-alpha",
      "--machine",
      "cm-nowhere",
    );
    expect(code).toBe(1);
    expect(err).toMatch(/--writes needs --machine to be listed .* machine cm-nowhere is not .* nothing was written/);
  });

  it.each([
    ["no key", ["--base-url", "http://127.0.0.1:1"], /--api-key \(or COMPUTE_API_KEY\) is required/],
    [
      "--writes without a machine",
      ["--base-url", "http://127.0.0.1:1", "--api-key", "k", "--writes"],
      /--writes needs --project and --machine/,
    ],
    [
      "an unknown operation",
      ["--base-url", "http://127.0.0.1:1", "--api-key", "k", "--only", "deleteEverything"],
      /'deleteEverything' is not an operation of the spec/,
    ],
    [
      "--runs with --seconds",
      ["--base-url", "http://127.0.0.1:1", "--api-key", "k", "--runs", "5", "--seconds", "5"],
      /cannot be used with/,
    ],
  ])("exits 2 for %s", async (_name, argv, message) => {
    const { code, err } = await run(...argv);
    expect(code).toBe(2);
    expect(err).toMatch(message);
  });
});

describe("against a broken backend", () => {
  let result: { code: number; out: string; err: string };
  let junit: string;
  beforeAll(async () => {
    junit = join(scratch, "broken.xml");
    result = await run(
      "--base-url",
      broken,
      "--api-key",
      key,
      "--runs",
      "30",
      "--rate",
      "1000",
      "--seed",
      "5",
      "--junit",
      junit,
    );
  }, 360_000);

  it("exits 1 and prints the seed and a replay line", () => {
    expect(result.code).toBe(1);
    expect(result.out).toMatch(/seed 5: \d+ of \d+ checks by operation failed/);
    expect(result.out).toMatch(/Replay: COMPUTE_API_KEY="\$KEY" compute-conformance --base-url \S+ --seed 5/);
  });

  it.each([
    ["a 500", "not_a_server_error", "searchResources", /answered 500/],
    [
      "a body without results",
      "response_schema_conformance",
      "searchResources",
      /response\.body\.results: must have required property 'results'/,
    ],
    [
      "an undocumented status",
      "status_code_conformance",
      "updateClusterMachine",
      /response\.status: status 418 is not documented/,
    ],
    ["a 200 for a broken request", "negative_data_rejection", "createApiKey", /answered 200, not 400/],
    ["a leaked stack trace", "no_leaked_internals", "searchResources", /shows a stack trace/],
  ])("reports %s under %s, with a curl line and a shrunk counterexample", (_name, check, operationId, message) => {
    const section = result.out.split("\n✗ ").find((s) => s.startsWith(`${check} · ${operationId}`));
    expect(section, `no failure of ${check} on ${operationId} in:\n${result.out}`).toBeDefined();
    expect(section).toMatch(message);
    expect(section).toMatch(
      /\n {2}curl -X \w+ 'http:\/\/127\.0\.0\.1:\d+\/v1\/[^']*' -H "authorization: Bearer \$KEY"/,
    );
    expect(section).toMatch(/shrunk in \d+ steps to: /);
  });

  it("never prints the key", () => {
    expect(result.out + result.err).not.toContain(key);
    expect(readFileSync(junit, "utf8")).not.toContain(key);
  });

  it("writes the failures into the JUnit report", () => {
    const xml = readFileSync(junit, "utf8");
    expect(xml).toMatch(/<testsuite name="status_code_conformance" tests="\d+" failures="[1-9]/);
    expect(xml).toMatch(/<failure message="[^"]*status 418 is not documented/);
  });

  it("keeps the other checks passing where the backend is right (auth)", () => {
    expect(result.out).toMatch(/ignored_auth\s+searchResources\s+\d+\s+0\n/);
  });
});

describe("runConformance", () => {
  it("closes its kept-alive connections when the run fails (the backend refuses the key)", async () => {
    const server = createServer((req, res) => {
      req.resume();
      json(res, 401, { code: 401, message: "missing or invalid API key" });
    });
    // An idle connection would stay a minute: only the run's agent closing it closes it within the wait below.
    server.keepAliveTimeout = 60_000;
    servers.push(server);
    let open = 0;
    server.on("connection", (socket) => {
      open++;
      socket.on("close", () => open--);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const baseUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    await expect(runConformance({ baseUrl, apiKey: "cak_refused", runs: 1, rate: 1000 })).rejects.toThrow(
      /refused the API key/,
    );
    // The run's agent closed it: the server sees the close well within the wait, however busy the machine.
    await expect.poll(() => open, { timeout: 20_000, interval: 20 }).toBe(0);
  });
});
