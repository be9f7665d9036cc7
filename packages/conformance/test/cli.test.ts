/** The compute-conformance command line: its help, version and exit status for bad flags (a run: run.test.ts). */
import { describe, expect, it } from "vitest";
import { runCli } from "../src/cli.js";

async function run(...argv: string[]): Promise<{ exitCode: number; out: string; err: string }> {
  let out = "";
  let err = "";
  const exitCode = await runCli(argv, { stdout: (t) => (out += t), stderr: (t) => (err += t) });
  return { exitCode, out, err };
}

describe("compute-conformance's command line", () => {
  it("ends its help with examples and the exit statuses, and writes every default one way", async () => {
    const { exitCode, out } = await run("--help");
    expect(exitCode).toBe(0);
    expect(out).toMatch(/--runs <n>\s+cases per generator \(default: 50; env:\s+COMPUTE_CONFORMANCE_RUNS\)/);
    expect(out).toMatch(/--api-key <key>[\s\S]*\(default: none:\s+required; env: COMPUTE_API_KEY\)/);
    expect(out).toMatch(/Examples:\n {2}\$ COMPUTE_API_KEY=\$KEY compute-conformance --base-url/);
    expect(out).toMatch(/Exit status:\n {2}0 {2}every check passed.*\n {2}1 {2}.*\n {2}2 {2}/);
  });

  it("prints its version", async () => {
    const { exitCode, out } = await run("--version");
    expect([exitCode, out.trim()]).toEqual([0, "1.0.0"]);
  });

  it.each([
    ["no base URL", ["--api-key", "k"], /^error: --base-url \(or COMPUTE_BASE_URL\) is required/],
    [
      "a base URL that is not one",
      ["--base-url", "localhost", "--api-key", "k"],
      /^error: --base-url must be an http:\/\/ or https:\/\/ URL, such as http:\/\/127\.0\.0\.1:4010; got "localhost"/,
    ],
    ["a base URL ending in /v1", ["--base-url", "http://127.0.0.1:4010/v1", "--api-key", "k"], /ends in \/v1/],
    ["--project without --writes", ["--base-url", "http://x", "--api-key", "k", "--project", "p"], /go with --writes/],
  ])("exits with 2 and says why for %s", async (_name, argv, message) => {
    const { exitCode, err } = await run(...argv);
    expect(exitCode).toBe(2);
    expect(err).toMatch(message);
    expect(err).toMatch(/\n\(run compute-conformance --help for the options\)\n$/);
  });
});
