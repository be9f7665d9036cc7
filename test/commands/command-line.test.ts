/**
 * The five commands speak one language, each run as its own process: a usage error is `error: …` then the hint to
 * --help, exit status 2; a URL without a scheme is said in one wording and a base URL ending in /v1 in the client's;
 * each flag's variable is the command's own (another command's never moves it), an old unprefixed one still works
 * with a deprecation line; a key given as a flag gets one warning line and is never printed; and compute-postgres in
 * memory does not promise that a later start keeps anything.
 */
import { createComputeClient } from "@compute-api/client";
import { baseUrlProblem } from "@compute-api/client/base-url";
import { variableOf } from "@compute-api/runtime/cli";
import { freePort } from "@compute-api/test-support";
import { afterAll, describe, expect, it } from "vitest";
import { type CommandName, commands, humanLines, killStarted, listening, run, start, until } from "./support.js";

afterAll(() => killStarted());

const key = "cak_on-the-command-line-0001";
const warning = (command: CommandName) =>
  `${command}: warning: --api-key on the command line shows in ps and in shell history; prefer COMPUTE_API_KEY`;
const noScheme = 'must be an http:// or https:// URL, such as http://127.0.0.1:4010; got "127.0.0.1:4010"';

describe.concurrent("a usage error, in every command", () => {
  it.each<[CommandName, { args: string[]; env?: Record<string, string>; says: string }]>([
    [
      "compute-stub",
      {
        args: [],
        env: { COMPUTE_STUB_PORT: "http" },
        says: "option '-p, --port <port>' value 'http' from env 'COMPUTE_STUB_PORT' is invalid. must be a whole number from 0 to 65535.",
      },
    ],
    ["compute-gateway", { args: ["--upstream", "127.0.0.1:4010"], says: `--upstream ${noScheme}` }],
    ["compute-conformance", { args: ["--base-url", "127.0.0.1:4010"], says: `--base-url ${noScheme}` }],
    [
      "compute-mcp",
      {
        args: [],
        env: { COMPUTE_BASE_URL: "127.0.0.1:4010", COMPUTE_API_KEY: key },
        says: `COMPUTE_BASE_URL ${noScheme}`,
      },
    ],
    [
      "compute-postgres",
      {
        args: ["--database-url", "localhost:5432/compute"],
        says: '--database-url must be a postgres:// or postgresql:// URL, such as postgres://me@localhost:5432/compute; got "localhost:5432/compute"',
      },
    ],
  ])(
    "%s: `error: …`, the hint to --help, exit status 2, nothing else",
    async (command, { args, env, says }) => {
      const { code, stdout, stderr } = await run(command, args, env);
      expect({ code, stdout, stderr }).toEqual({
        code: 2,
        stdout: "",
        stderr: `error: ${says}\n(run ${command} --help for the options)\n`,
      });
    },
    120_000,
  );

  const v1 = "http://127.0.0.1:4010/v1";
  it.each<[CommandName, string]>([
    ["compute-gateway", "--upstream"],
    ["compute-conformance", "--base-url"],
    ["compute-mcp", "--base-url"],
  ])(
    "%s refuses %s ending in /v1 at start, in the client's words",
    async (command, flag) => {
      const { code, stderr } = await run(command, [flag, v1], { COMPUTE_API_KEY: key });
      const problem = baseUrlProblem(v1) ?? "";
      expect(problem).toMatch(
        /ends in \/v1 .*calls would go to \/v1\/v1\/… and get 404.*give the origin, "http:\/\/127\.0\.0\.1:4010"/,
      );
      expect(() => createComputeClient({ baseUrl: v1, apiKey: key })).toThrow(`compute-api client: baseUrl ${problem}`);
      expect([code, stderr]).toEqual([2, `error: ${flag} ${problem}\n(run ${command} --help for the options)\n`]);
    },
    120_000,
  );
});

/** What each serving command needs besides a port to start (with no backend behind it: none is called). */
const serving: [CommandName, string[], Record<string, string>][] = [
  ["compute-stub", ["--api-key", key], {}],
  ["compute-gateway", ["--upstream", "http://127.0.0.1:1"], {}],
  ["compute-mcp", ["--http", "--base-url", "http://127.0.0.1:1", "--api-key", key], {}],
  ["compute-postgres", ["--api-key", key], {}],
];

describe.concurrent("each command's own variables", () => {
  it.each(serving)(
    "%s listens on its own COMPUTE_…_PORT, not on another command's nor on PORT; warns once of --api-key, never printing it",
    async (command, args, env) => {
      const port = await freePort();
      // Every other command's port variable, and the old shared one, hold what would stop this command if it read them.
      const others = Object.fromEntries(
        Object.keys(commands)
          .filter((other) => other !== command)
          .map((other) => [variableOf(other, "--port"), "not-a-port"]),
      );
      const running = start(command, args, {
        ...env,
        ...others,
        PORT: "not-a-port",
        [variableOf(command, "--port")]: String(port),
        LOG_LEVEL: "warn",
      });
      expect(await listening(running, port), running.stderr()).toBe(true);
      // The serving commands of data print their lines once they are ready (their key registered) and stop on a signal.
      if (command === "compute-stub" || command === "compute-postgres")
        expect(await until(() => running.stdout().includes("Stop it")), running.stdout()).toBe(true);
      running.child.kill("SIGTERM");
      expect(await running.exit).toBe(0);
      const takesKey = args.includes("--api-key");
      expect(humanLines(running.stderr())).toEqual([
        `${command}: PORT is deprecated; use ${variableOf(command, "--port")}`,
        ...(takesKey ? [warning(command)] : []),
      ]);
      expect(running.stdout() + running.stderr()).not.toContain(key);
    },
    200_000,
  );

  it("compute-conformance reads COMPUTE_BASE_URL and still the old CONFORMANCE_BASE_URL, and warns once of --api-key", async () => {
    const port = await freePort();
    const { code, stdout, stderr } = await run("compute-conformance", ["--api-key", key], {
      CONFORMANCE_BASE_URL: `http://127.0.0.1:${port}`,
    });
    // Nothing listens there: the run cannot be made (1), after the lines of its start.
    expect(code).toBe(1);
    expect(stdout).toContain(`→ http://127.0.0.1:${port}, seed`);
    expect(humanLines(stderr).slice(0, 2)).toEqual([
      "compute-conformance: CONFORMANCE_BASE_URL is deprecated; use COMPUTE_BASE_URL",
      warning("compute-conformance"),
    ]);
    expect(stdout + stderr).not.toContain(key);
  }, 120_000);
});

describe("an old variable still moves its command", () => {
  it("compute-postgres on an exported PORT, saying so; in memory, it says its key and data go with it", async () => {
    const port = await freePort();
    const running = start("compute-postgres", [], { PORT: String(port), LOG_LEVEL: "warn" });
    expect(await listening(running, port), running.stderr()).toBe(true);
    expect(await until(() => running.stdout().includes("Stop it")), running.stdout()).toBe(true);
    running.child.kill("SIGTERM");
    expect(await running.exit).toBe(0);
    expect(humanLines(running.stderr())).toEqual(["compute-postgres: PORT is deprecated; use COMPUTE_POSTGRES_PORT"]);
    expect(running.stdout()).toContain(
      `compute-postgres listening on http://127.0.0.1:${port} (data: PGlite in memory)`,
    );
    expect(running.stdout()).toContain(
      "API key of user 'alice' (new at each start: the data is in memory and gone at exit; --pglite-dir or --database-url keeps it;",
    );
    expect(running.stdout()).not.toContain("later starts keep it");
  }, 200_000);
});
