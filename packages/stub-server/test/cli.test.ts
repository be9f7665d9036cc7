/** The command line: flags and environment, what it prints, exit codes, and the bin's clean shutdown. */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it, vi } from "vitest";
import { parse as parseYaml, stringify as stringifyYaml } from "yaml";
import { type CliResult, runCli } from "../src/index.js";

const started: CliResult[] = [];
afterEach(async () => {
  vi.unstubAllEnvs();
  await Promise.all(started.splice(0).map((r) => r.stub?.close()));
});

/** Runs the command in this process and collects what it writes. */
async function run(...argv: string[]): Promise<CliResult & { out: string; err: string }> {
  let out = "";
  let err = "";
  const result = await runCli(argv, { stdout: (t) => (out += t), stderr: (t) => (err += t) });
  started.push(result);
  return { ...result, out, err };
}

const example = fileURLToPath(new URL("../examples/fixtures.yaml", import.meta.url));
const search = (url: string, key: string, query = "type:project") =>
  fetch(`${url}/v1/resources/search?query=${query}`, { headers: { authorization: `Bearer ${key}` } });

describe("compute-stub flags", () => {
  it.each([
    ["a port that is not a number", ["--port", "http"], /--port.*must be a whole number from 0 to 65535/],
    ["a port out of range", ["--port", "70000"], /must be a whole number from 0 to 65535/],
    ["a data set too small to generate", ["--generate", "5"], /--generate.*at least|from 10/],
    ["--data with --generate", ["--data", "x.json", "--generate", "100"], /cannot be used with/],
    ["an unknown log level", ["--log-level", "loud"], /Allowed choices are fatal, error/],
    ["a CORS origin that is not one", ["--cors-origin", "ftp://files.example"], /is not an origin/],
    ["a key that cannot be sent", ["--api-key", "has spaces"], /may hold only/],
    ["an unknown flag", ["--verbose"], /unknown option '--verbose'/],
    ["an argument", ["serve"], /too many arguments/],
    [
      "a fault status an operation does not document",
      ["--faults", "404=1%"],
      /'404' is not a status every operation documents/,
    ],
    ["fault shares over 100%", ["--faults", "500=60%,503=50%"], /add up to more than 100%/],
    ["a latency that is not a range", ["--latency", "soon"], /not a range of milliseconds/],
    ["a drop share over 100%", ["--drop", "150%"], /not a percentage/],
    ["a rate without its unit", ["--rate-limit", "20"], /not a rate such as 20\/s/],
  ])("exits with 2 and says why for %s", async (_name, argv, message) => {
    const { exitCode, err, stub } = await run(...argv);
    expect({ exitCode, stub }).toEqual({ exitCode: 2, stub: undefined });
    expect(err).toMatch(message);
  });

  it("prints help and exits with 0", async () => {
    const { exitCode, out } = await run("--help");
    expect(exitCode).toBe(0);
    expect(out).toMatch(/Usage: compute-stub \[options\][\s\S]*--api-key <key>[\s\S]*env: COMPUTE_API_KEY/);
  });

  it("prints its version and exits with 0", async () => {
    const { exitCode, out } = await run("--version");
    expect([exitCode, out.trim()]).toEqual([0, "1.0.0"]);
  });

  it("exits with 1 naming each offending path of a bad --data file", async () => {
    const { exitCode, err } = await run(
      "--data",
      fileURLToPath(new URL("./fixtures/no-such-file.yaml", import.meta.url)),
    );
    expect(exitCode).toBe(1);
    expect(err).toMatch(/no-such-file\.yaml cannot be served:\n {2}cannot be read: ENOENT/);
  });
});

describe("compute-stub's admin API flags", () => {
  const reset = (url: string, token?: string) =>
    fetch(`${url}/__stub/reset`, {
      method: "POST",
      headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
    });

  it.each([["0.0.0.0"], ["::"]])(
    "turns the admin API off on %s, beyond this machine, without a token, and says so",
    async (host) => {
      const { exitCode, err, out, stub } = await run("--host", host, "--port", "0", "--log-level", "silent");
      expect(exitCode).toBe(0);
      expect(err).toMatch(
        /admin API \(\/__stub\/\) is off: --host .* beyond this machine.*--admin-token or COMPUTE_STUB_ADMIN_TOKEN/,
      );
      expect(out).not.toContain("__stub");
      const url = (stub?.url ?? "").replace(/\/\/(0\.0\.0\.0|\[::\])/, "//127.0.0.1");
      expect((await reset(url)).status).toBe(404);
    },
  );

  it.each([["127.0.0.1"], ["localhost"], ["::1"]])("serves the admin API on %s without a token", async (host) => {
    const { err, stub } = await run("--host", host, "--port", "0", "--log-level", "silent");
    expect(err).toBe("");
    expect((await reset(stub?.url ?? "")).status).toBe(200);
  });

  it("listens beyond loopback with --admin-token (or COMPUTE_STUB_ADMIN_TOKEN), whose admin API needs it", async () => {
    vi.stubEnv("COMPUTE_STUB_ADMIN_TOKEN", "from-the-environment");
    const { stub } = await run("--host", "0.0.0.0", "--port", "0", "--log-level", "silent");
    const url = (stub?.url ?? "").replace("0.0.0.0", "127.0.0.1");
    expect((await reset(url)).status).toBe(401);
    expect((await reset(url, "from-the-environment")).status).toBe(200);
    const flagged = await run("--port", "0", "--log-level", "silent", "--admin-token", "from-the-flag");
    expect((await reset(flagged.stub?.url ?? "", "from-the-environment")).status).toBe(401);
    expect((await reset(flagged.stub?.url ?? "", "from-the-flag")).status).toBe(200);
  });

  it("turns the admin API off with --no-admin, on any host, and says nothing more of it", async () => {
    const { stub, out, err } = await run("--host", "0.0.0.0", "--port", "0", "--log-level", "silent", "--no-admin");
    expect([out, err].join("")).not.toContain("__stub");
    expect((await reset((stub?.url ?? "").replace("0.0.0.0", "127.0.0.1"))).status).toBe(404);
  });

  it("reads its --data file again at a reset (an edited file is picked up), and keeps --journal-size requests", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "stub-reset-")), "data.yaml");
    copyFileSync(example, file);
    const { stub } = await run(
      "--port",
      "0",
      "--log-level",
      "silent",
      "--api-key",
      "cak_journal",
      "--data",
      file,
      "--journal-size",
      "1",
    );
    const url = stub?.url ?? "";
    const first = await (await search(url, "cak_journal")).text();
    expect((await reset(url)).status).toBe(200);
    expect(await (await search(url, "cak_journal")).text()).toBe(first);
    // The file edited: a new project of its first user.
    const data = parseYaml(readFileSync(example, "utf8"));
    data.projects.push({ id: "proj-new", billingAccountId: "ba-shop" });
    data.users[0].projectIds.push("proj-new");
    writeFileSync(file, stringifyYaml(data));
    expect((await reset(url)).status).toBe(200);
    const edited = await (await search(url, "cak_journal")).json();
    expect(edited.results.map((r: { resourceName: string }) => r.resourceName)).toContain("projects/proj-new");
    const journal = await (await fetch(`${url}/__stub/requests`)).json();
    expect(journal.requests.map((r: { query: unknown }) => r.query)).toEqual([{ query: "type:project" }]);
    // A file that can no longer be served: the reset answers 500 naming it, and the state stays.
    writeFileSync(file, "users: 3");
    const failed = await reset(url);
    expect(failed.status).toBe(500);
    expect(await failed.text()).toMatch(/data\.yaml cannot be served/);
    expect((await search(url, "cak_journal")).status).toBe(200);
  });

  it("refuses a --journal-size that is not a whole number (exit 2)", async () => {
    const { exitCode, err } = await run("--journal-size", "lots");
    expect(exitCode).toBe(2);
    expect(err).toMatch(/--journal-size.*whole number from 0 to 1000000/);
  });
});

describe("compute-stub start-up", () => {
  it("injects the faults of its flags: --faults, --rate-limit, and Prefer unless --no-prefer", async () => {
    const { stub } = await run(
      "--port",
      "0",
      "--log-level",
      "silent",
      "--api-key",
      "cak_flags",
      "--faults",
      "503=100%",
    );
    expect((await search(stub?.url ?? "", "cak_flags")).status).toBe(503);
    const limited = await run(
      "--port",
      "0",
      "--log-level",
      "silent",
      "--api-key",
      "cak_flags",
      "--rate-limit",
      "1/min",
      "--no-prefer",
    );
    const statuses = [];
    for (let i = 0; i < 2; i++)
      statuses.push(
        (
          await fetch(`${limited.stub?.url}/v1/resources/search?query=a`, {
            headers: { authorization: "Bearer cak_flags", prefer: "code=500" },
          })
        ).status,
      );
    expect(statuses).toEqual([200, 429]);
  });

  it("generates a key, prints it with a curl line that works, and the URL", async () => {
    const { exitCode, out, stub } = await run("--port", "0", "--log-level", "silent");
    expect(exitCode).toBe(0);
    const key = /^ {2}(cak_[A-Za-z0-9_-]{43})$/m.exec(out)?.[1] ?? "";
    const curl = /curl -H "Authorization: Bearer (\S+)" "(\S+)"/.exec(out);
    expect(out).toContain(`listening on ${stub?.url} (docs: ${stub?.url}/docs, admin: ${stub?.url}/__stub/)`);
    expect(curl?.[1]).toBe(key);
    const res = await fetch(curl?.[2] ?? "", { headers: { authorization: `Bearer ${key}` } });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { results: unknown[] }).results.length).toBeGreaterThan(0);

    // The same port again: start-up fails with a message, not a crash.
    const again = await run("--port", String(new URL(stub?.url ?? "").port), "--log-level", "silent");
    expect(again.exitCode).toBe(1);
    expect(again.err).toMatch(/cannot start: .*EADDRINUSE/);
  });

  it("serves a --data file, takes COMPUTE_STUB_PORT and COMPUTE_API_KEY from the environment and never prints that key", async () => {
    vi.stubEnv("COMPUTE_STUB_PORT", "0");
    vi.stubEnv("COMPUTE_API_KEY", "cak_from-the-environment");
    const { out, err, stub } = await run("--data", example, "--log-level", "silent");
    expect(out + err).not.toContain("cak_from-the-environment");
    expect(err).toBe("");
    expect(out).toContain('curl -H "Authorization: Bearer $COMPUTE_API_KEY"');
    const url = stub?.url ?? "";
    // The first user gets the key; the file's keys work too, whether given in clear or as a hash.
    for (const key of ["cak_from-the-environment", "cak_example-dev-key"]) {
      expect(await (await search(url, key)).json()).toMatchObject({
        results: [{ resourceName: "projects/proj-shop" }],
      });
    }
    expect(await (await search(url, "cak_example-ops-key", "type:billingAccount")).json()).toMatchObject({
      results: [{ resourceName: "billingAccounts/ba-shop" }],
    });
  });

  it("serves a generated data set", async () => {
    const { stub } = await run(
      "--generate",
      "300",
      "--seed",
      "3",
      "--port",
      "0",
      "--log-level",
      "silent",
      "--api-key",
      "cak_generated",
    );
    const { results } = (await (await search(stub?.url ?? "", "cak_generated", "type:disk")).json()) as {
      results: unknown[];
    };
    expect(results.length).toBeGreaterThan(10);
  });
});

describe.concurrent("the compute-stub bin", () => {
  it("shuts down cleanly on SIGTERM", async () => {
    const bin = fileURLToPath(new URL("../src/bin.ts", import.meta.url));
    const child = spawn(
      process.execPath,
      ["--conditions=@compute-api/source", "--import", "tsx", bin, "--port", "0", "--log-level", "silent"],
      {
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let out = "";
    child.stdout.setEncoding("utf8").on("data", (t: string) => (out += t));
    await vi.waitFor(() => expect(out).toMatch(/Bearer (\S+)" "(\S+)"/), { timeout: 90_000, interval: 100 });
    const [, key, url] = /Bearer (\S+)" "(\S+)"/.exec(out) ?? [];
    expect((await fetch(url ?? "", { headers: { authorization: `Bearer ${key}` } })).status).toBe(200);
    child.kill("SIGTERM");
    const [code] = await once(child, "exit");
    expect(code).toBe(0);
    expect(out).toContain("SIGTERM, draining");
  });

  it("exits with 2 on a bad flag", async () => {
    const bin = fileURLToPath(new URL("../src/bin.ts", import.meta.url));
    const child = spawn(process.execPath, ["--conditions=@compute-api/source", "--import", "tsx", bin, "--port", "x"], {
      stdio: "ignore",
    });
    const [code] = await once(child, "exit");
    expect(code).toBe(2);
  });
});

describe("compute-stub speaks the commands' common language", () => {
  it("reads COMPUTE_API_KEY and COMPUTE_STUB_CORS_ORIGINS, and -p for the port", async () => {
    vi.stubEnv("COMPUTE_API_KEY", "cak_common-name");
    vi.stubEnv("COMPUTE_STUB_CORS_ORIGINS", "https://app.example");
    const { out, err, stub } = await run("-p", "0", "--log-level", "silent");
    expect(err).toBe("");
    expect(out).toContain('curl -H "Authorization: Bearer $COMPUTE_API_KEY"');
    expect(out).toContain("the one given by COMPUTE_API_KEY");
    const res = await fetch(`${stub?.url}/v1/resources/search?query=a`, {
      headers: { authorization: "Bearer cak_common-name", origin: "https://app.example" },
    });
    expect([res.status, res.headers.get("access-control-allow-origin")]).toEqual([200, "https://app.example"]);
  });

  it("still reads STUB_API_KEY, STUB_CORS_ORIGINS and --cors-origin, each with one deprecation line", async () => {
    vi.stubEnv("STUB_API_KEY", "cak_old-name");
    vi.stubEnv("STUB_CORS_ORIGINS", "https://old.example");
    const { err, stub } = await run("--port", "0", "--log-level", "silent", "--cors-origin", "https://flag.example");
    expect(err.split("\n").filter(Boolean)).toEqual([
      "compute-stub: --cors-origin is deprecated; use --cors-origins",
      "compute-stub: STUB_API_KEY is deprecated; use COMPUTE_API_KEY",
      "compute-stub: STUB_CORS_ORIGINS is deprecated; use COMPUTE_STUB_CORS_ORIGINS",
    ]);
    const res = await fetch(`${stub?.url}/v1/resources/search?query=a`, {
      headers: { authorization: "Bearer cak_old-name", origin: "https://flag.example" },
    });
    expect([res.status, res.headers.get("access-control-allow-origin")]).toEqual([200, "https://flag.example"]);
  });

  it("still reads every old unprefixed variable, with one deprecation line each", async () => {
    const old = {
      PORT: "0",
      CORS_ORIGINS: "https://old.example",
      COMPUTE_ADMIN_TOKEN: "an-old-admin-token",
      SHUTDOWN_GRACE: "1234",
      SHUTDOWN_TIMEOUT: "5678",
    };
    for (const [name, value] of Object.entries(old)) vi.stubEnv(name, value);
    const { err, stub, shutdown } = await run("--log-level", "silent", "--api-key", "cak_old-names");
    // One line for each, in whatever order the command reads them.
    expect(
      err
        .split("\n")
        .filter((line) => line.includes("deprecated"))
        .sort(),
    ).toEqual(
      Object.keys(old)
        .map((name) => `compute-stub: ${name} is deprecated; use COMPUTE_STUB_${name.replace("COMPUTE_", "")}`)
        .sort(),
    );
    const url = stub?.url ?? "";
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:(?!4010)\d+$/);
    expect(shutdown).toEqual({ graceMs: 1234, timeoutMs: 5678 });
    const res = await fetch(`${url}/v1/resources/search?query=a`, {
      headers: { authorization: "Bearer cak_old-names", origin: "https://old.example" },
    });
    expect(res.headers.get("access-control-allow-origin")).toBe("https://old.example");
    expect((await fetch(`${url}/__stub/`)).status).toBe(401);
  });

  it("still reads HOST, with a deprecation line: an address of no interface here fails its start", async () => {
    vi.stubEnv("HOST", "192.0.2.1");
    const { exitCode, err } = await run("--port", "0", "--log-level", "silent", "--no-admin");
    expect(exitCode).toBe(1);
    expect(err).toMatch(
      /^compute-stub: HOST is deprecated; use COMPUTE_STUB_HOST\ncompute-stub: cannot start: .*192\.0\.2\.1/,
    );
  });

  it("prefers the new variable to the old one", async () => {
    vi.stubEnv("STUB_API_KEY", "cak_old-name");
    vi.stubEnv("COMPUTE_API_KEY", "cak_new-name");
    const { stub } = await run("--port", "0", "--log-level", "silent");
    expect((await search(stub?.url ?? "", "cak_new-name")).status).toBe(200);
    expect((await search(stub?.url ?? "", "cak_old-name")).status).toBe(401);
  });

  it("refuses a bad value of an old variable as it refuses the new one's, with 2", async () => {
    vi.stubEnv("STUB_API_KEY", "has spaces");
    const { exitCode, err } = await run("--port", "0");
    expect(exitCode).toBe(2);
    expect(err).toMatch(/^error: STUB_API_KEY may hold only letters, digits and \. _ ~ \+ \/ = -\n/m);
    expect(err).not.toContain("has spaces");
  });

  it("ends its help with examples and the exit statuses, and writes every default one way", async () => {
    const { out } = await run("--help");
    expect(out).toMatch(/-p, --port <port>[\s\S]*\(default: 4010;\s+env: COMPUTE_STUB_PORT\)/);
    expect(out).toMatch(/\(default: a new key at\s+each start, printed; env: COMPUTE_API_KEY\)/);
    expect(out).toMatch(/Examples:\n {2}\$ compute-stub/);
    expect(out).toMatch(/Exit status:\n {2}0 {2}.*\n {2}1 {2}.*\n {2}2 {2}a flag or variable is invalid/);
    expect(out).not.toContain("--cors-origin ");
  });
});
