/** The compute-gateway command: flags and environment, exit status 2 on bad input, and a real start. */
import { freePort, keepEnvironment, listenLocal } from "@compute-api/test-support";
import { afterEach, describe, expect, it } from "vitest";
import { type CliConfig, parseCommandLine } from "../src/cli.js";
import { runGateway } from "./support/command.js";
import { json, testUpstream } from "./support/servers.js";

/** Runs the bin from source; resolves when it exits or prints a line matching `until`. */
const run = (args: string[], env: Record<string, string> = {}, until?: RegExp) =>
  runGateway(args, env, until ? { until } : {});

/** Standard output and error that keep nothing: a parse here prints no deprecation line into the test's output. */
const quiet = { stdout: () => {}, stderr: () => {} };

afterEach(keepEnvironment());

describe("parseCommandLine", () => {
  it("reads flags, with defaults for the rest", () => {
    expect(
      parseCommandLine([
        "--upstream",
        "http://127.0.0.1:4010",
        "--port",
        "0",
        "--response-validation",
        "report",
        "--workers",
        "3",
        "--passthrough-unknown",
      ]),
    ).toMatchObject({
      upstream: new URL("http://127.0.0.1:4010"),
      port: 0,
      host: "127.0.0.1",
      responseValidation: "report",
      timeoutMs: 30_000,
      workers: 3,
      passthroughUnknown: true,
    });
  });

  it("reads each setting from its variable, and a flag wins over it", () => {
    Object.assign(process.env, {
      COMPUTE_GATEWAY_UPSTREAM: "http://backend:9000",
      COMPUTE_GATEWAY_PORT: "9090",
      COMPUTE_GATEWAY_HOST: "0.0.0.0",
      COMPUTE_GATEWAY_RESPONSE_VALIDATION: "off",
      COMPUTE_GATEWAY_TIMEOUT_MS: "1500",
      COMPUTE_GATEWAY_MAX_BODY_BYTES: "2048",
      COMPUTE_GATEWAY_MAX_RESPONSE_BYTES: "4096",
      COMPUTE_GATEWAY_WORKERS: "2",
      COMPUTE_GATEWAY_PASSTHROUGH_UNKNOWN: "true",
      COMPUTE_GATEWAY_UPSTREAM_KEEP_ALIVE_TIMEOUT: "900",
      COMPUTE_GATEWAY_REQUEST_TIMEOUT: "5000",
      COMPUTE_GATEWAY_SHUTDOWN_GRACE: "3000",
      COMPUTE_GATEWAY_SHUTDOWN_TIMEOUT: "20000",
    });
    expect(parseCommandLine(["--port", "7070"], quiet)).toEqual({
      upstream: new URL("http://backend:9000"),
      port: 7070,
      host: "0.0.0.0",
      responseValidation: "off",
      timeoutMs: 1500,
      maxBodyBytes: 2048,
      maxResponseBytes: 4096,
      workers: 2,
      passthroughUnknown: true,
      upstreamKeepAliveTimeoutMs: 900,
      requestTimeoutMs: 5000,
      shutdownGraceMs: 3000,
      shutdownTimeoutMs: 20000,
      logLevel: "info",
    });
    process.env.COMPUTE_GATEWAY_PASSTHROUGH_UNKNOWN = "false";
    expect(parseCommandLine([], quiet).passthroughUnknown).toBe(false);
  });

  it.each<[string, string, Partial<CliConfig>]>([
    ["UPSTREAM_URL", "http://backend:9000", { upstream: new URL("http://backend:9000") }],
    ["PORT", "9090", { port: 9090 }],
    ["HOST", "0.0.0.0", { host: "0.0.0.0" }],
    ["RESPONSE_VALIDATION", "off", { responseValidation: "off" }],
    ["TIMEOUT_MS", "1500", { timeoutMs: 1500 }],
    ["MAX_BODY_BYTES", "2048", { maxBodyBytes: 2048 }],
    ["MAX_RESPONSE_BYTES", "4096", { maxResponseBytes: 4096 }],
    ["WORKERS", "2", { workers: 2 }],
    ["PASSTHROUGH_UNKNOWN", "true", { passthroughUnknown: true }],
    ["UPSTREAM_KEEP_ALIVE_TIMEOUT", "900", { upstreamKeepAliveTimeoutMs: 900 }],
    ["REQUEST_TIMEOUT", "5000", { requestTimeoutMs: 5000 }],
    ["SHUTDOWN_GRACE", "3000", { shutdownGraceMs: 3000 }],
    ["SHUTDOWN_TIMEOUT", "20000", { shutdownTimeoutMs: 20000 }],
    ["CORS_ORIGINS", "https://app.example", { corsOrigins: ["https://app.example"] }],
    ["RECORD_FILE", "recorded.yaml", { record: "recorded.yaml" }],
  ])("still reads %s, with one deprecation line", (name, value, want) => {
    if (name !== "UPSTREAM_URL") process.env.COMPUTE_GATEWAY_UPSTREAM = "http://127.0.0.1:4010";
    process.env[name] = value;
    let err = "";
    expect(parseCommandLine([], { stdout: () => {}, stderr: (text) => (err += text) })).toMatchObject(want);
    expect(err).toMatch(new RegExp(`^compute-gateway: ${name} is deprecated; use COMPUTE_GATEWAY_[A-Z_]+\\n$`));
  });

  it("takes the new variable over the old one", () => {
    Object.assign(process.env, { COMPUTE_GATEWAY_UPSTREAM: "http://new:1", UPSTREAM_URL: "http://old:1" });
    expect(parseCommandLine([], quiet).upstream.href).toBe("http://new:1/");
  });
});

describe("compute-gateway", () => {
  it.concurrent.each([
    ["no upstream", [], /^error: --upstream \(or COMPUTE_GATEWAY_UPSTREAM\) is required/],
    [
      "a malformed upstream",
      ["--upstream", "localhost:4010"],
      /^error: --upstream must be an http:\/\/ or https:\/\/ URL, such as http:\/\/127\.0\.0\.1:4010; got "localhost:4010"\n/,
    ],
    [
      "an upstream ending in /v1, in the client's words",
      ["--upstream", "http://127.0.0.1:4010/v1/"],
      /^error: --upstream ends in \/v1 \("http:\/\/127\.0\.0\.1:4010\/v1\/"\), but the API's paths start with \/v1 already \(calls would go to \/v1\/v1\/… and get 404\); give the origin, "http:\/\/127\.0\.0\.1:4010"\n/,
    ],
    [
      "an unknown mode",
      ["--upstream", "http://127.0.0.1:1", "--response-validation", "strict"],
      /Allowed choices are enforce, report, off/,
    ],
    [
      "--record-keys without --record",
      ["--upstream", "http://127.0.0.1:1", "--record-keys"],
      /--record-keys: give --record <file> too/,
    ],
  ])("exits 2 with a clear message given %s", async (_name, args, message) => {
    const { done } = run(args, { COMPUTE_GATEWAY_UPSTREAM: "" });
    const { code, output } = await done;
    expect(code).toBe(2);
    expect(output).toMatch(message);
    expect(output).toMatch(/\n\(run compute-gateway --help for the options\)\n$/);
  });

  it.concurrent.each([
    [
      "a query, quoted with its query",
      ["--upstream", "http://127.0.0.1:4010?x=1"],
      /--upstream must not have a query or fragment; got "http:\/\/127\.0\.0\.1:4010\?x=1"/,
    ],
    ["credentials, never quoted", ["--upstream", "http://me:secret@backend"], /--upstream must not hold a user name/],
    [
      "credentials without a scheme, never quoted",
      ["--upstream", "me:secret@backend:4010"],
      /--upstream must be an http:\/\/ or https:\/\/ URL, such as http:\/\/127\.0\.0\.1:4010; got "\*\*\*@backend:4010"/,
    ],
    [
      "workers that are no number, naming auto",
      ["--upstream", "http://127.0.0.1:1", "--workers", "many"],
      /must be a whole number from 1 to 1024, or auto\./,
    ],
  ])("says what is wrong with %s, and exits 2", async (_name, args, message) => {
    const { done } = run(args, { COMPUTE_GATEWAY_UPSTREAM: "" });
    const { code, output } = await done;
    expect(code).toBe(2);
    expect(output).toMatch(message);
    expect(output).not.toContain("secret");
  });

  it("ends its help with examples and the exit statuses, and takes -p for the port", async () => {
    const { done } = run(["--help"]);
    const { code, output } = await done;
    expect(code).toBe(0);
    expect(output).toMatch(/-p, --port <port>[\s\S]*\(default: 8080;\s+env: COMPUTE_GATEWAY_PORT\)/);
    expect(output).toMatch(/Examples:\n {2}\$ compute-gateway --upstream/);
    expect(output).toMatch(/Exit status:\n {2}0 {2}.*\n {2}1 {2}.*\n {2}2 {2}/);
    expect(parseCommandLine(["--upstream", "http://127.0.0.1:1", "-p", "9000"], quiet).port).toBe(9000);
  });

  it("prints its version", async () => {
    const { done } = run(["--version"]);
    const { code, output } = await done;
    expect([code, output.trim()]).toEqual([0, "1.0.0"]);
  });

  it.each([
    ["one process", []],
    ["two workers", ["--workers", "2"]],
  ])("says in one line that the port is taken and exits 1 (%s)", async (_name, extra) => {
    const taken = await listenLocal(() => {});
    try {
      const { done } = run(["--upstream", "http://127.0.0.1:1", "--port", String(taken.port), ...extra]);
      const { code, output } = await done;
      expect(code).toBe(1);
      expect(output).toMatch(new RegExp(`^compute-gateway: cannot start: .*EADDRINUSE.*${taken.port}\\n$`));
    } finally {
      await taken.close();
    }
  });

  it("starts in front of an upstream and answers", async () => {
    const upstream = await testUpstream();
    upstream.answer = (_req, res) => json(res, 200, { results: [] });
    const { child, done } = run(["--upstream", upstream.url, "--port", "0"], {}, /"msg":"compute-gateway listening"/);
    try {
      const { output } = await done;
      const url = /"url":"([^"]+)"/.exec(output)?.[1];
      const res = await fetch(`${url}/v1/resources/search?query=a`, { headers: { authorization: "Bearer k" } });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ results: [] });
    } finally {
      child.kill("SIGTERM");
      await upstream.close();
    }
  });

  it("answers headers over Node's size limit with 431 and the error body, not Node's empty answer", async () => {
    const upstream = await testUpstream();
    const { child, done } = run(["--upstream", upstream.url, "--port", "0"], {}, /"msg":"compute-gateway listening"/);
    try {
      const { output } = await done;
      const url = /"url":"([^"]+)"/.exec(output)?.[1];
      const res = await fetch(`${url}/v1/resources/search?query=a`, {
        headers: { authorization: "Bearer k", "x-padding": "a".repeat(20_000) },
      });
      expect(res.status).toBe(431);
      expect(res.headers.get("content-type")).toMatch(/^application\/json/);
      expect(await res.json()).toMatchObject({ code: 431, details: [{ reason: "HEADERS_TOO_LARGE" }] });
    } finally {
      child.kill("SIGTERM");
      await upstream.close();
    }
  });

  it("with --workers 2 serves from two processes and sums /metrics over both", async () => {
    const upstream = await testUpstream();
    upstream.answer = (_req, res) => json(res, 200, { results: [] });
    const port = await freePort();
    const { child, done } = run(
      ["--upstream", upstream.url, "--port", String(port), "--workers", "2"],
      {},
      /listening[\s\S]*listening/,
    );
    try {
      const { output } = await done;
      expect(
        new Set([...output.matchAll(/"pid":(\d+),"msg":"compute-gateway listening"/g)].map((m) => m[1])).size,
      ).toBe(2);
      for (let i = 0; i < 6; i++)
        await fetch(`http://127.0.0.1:${port}/v1/resources/search?query=a`, { headers: { authorization: "Bearer k" } });
      const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
      expect(metrics).toContain('gateway_requests_total{operation_id="searchResources",status="200"} 6');
    } finally {
      child.kill("SIGTERM");
      await upstream.close();
    }
  });
});
