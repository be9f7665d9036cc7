/** compute-postgres's command line: flags, what it prints, keeping a PGlite directory's data, and the bin's clean shutdown. */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { type CliResult, runCli } from "../src/cli.js";

const started: CliResult[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((r) => r.server?.close()));
});
const scratch = mkdtempSync(join(tmpdir(), "compute-postgres-cli-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Runs the command in this process and collects what it writes. */
async function run(...argv: string[]): Promise<CliResult & { out: string; err: string }> {
  let out = "";
  let err = "";
  const result = { ...(await runCli(argv, { stdout: (t) => (out += t), stderr: (t) => (err += t) })), out, err };
  started.push(result);
  return result;
}

const search = (url: string, key: string, query = "type:project") =>
  fetch(`${url}/v1/resources/search?query=${query}`, { headers: { authorization: `Bearer ${key}` } });

describe("compute-postgres", () => {
  it.each([
    ["a port out of range", ["--port", "70000"], /must be a whole number from 0 to 65535/],
    ["--data with --generate", ["--data", "x.json", "--generate", "100"], /cannot be used with/],
    [
      "--database-url with --pglite-dir",
      ["--database-url", "postgres://x@127.0.0.1/x", "--pglite-dir", "d"],
      /cannot be used with/,
    ],
    ["a key that cannot be sent", ["--api-key", "has spaces"], /may hold only/],
    ["an unknown flag", ["--faults", "500=1%"], /unknown option '--faults'/],
  ])("exits with 2 and says why for %s", async (_name, argv, message) => {
    const { exitCode, err, server } = await run(...argv);
    expect({ exitCode, server }).toEqual({ exitCode: 2, server: undefined });
    expect(err).toMatch(message);
  });

  it("prints help with the stub's flags and its own", async () => {
    const { exitCode, out } = await run("--help");
    expect(exitCode).toBe(0);
    expect(out).toMatch(
      /Usage: compute-postgres[\s\S]*--api-key <key>[\s\S]*env:\s+COMPUTE_API_KEY[\s\S]*--database-url/,
    );
  });

  it("prints a new key that works and a curl line, and keeps a PGlite directory's data and changes across starts", async () => {
    const dir = join(scratch, "data");
    const first = await run("--port", "0", "--pglite-dir", dir, "--log-level", "silent");
    expect(first.exitCode).toBe(0);
    const key = /\n {2}(cak_\S+)\n/.exec(first.out)?.[1] as string;
    expect(first.out).toMatch(/compute-postgres listening on http:\/\/127\.0\.0\.1:\d+ \(data: /);
    expect(first.out).toContain(`curl -H "Authorization: Bearer ${key}"`);
    const url = first.server?.url as string;
    expect((await search(url, key)).status).toBe(200);
    const patched = await fetch(`${url}/v1/projects/proj-alpha/cluster-machines/cm-alpha-01`, {
      method: "PATCH",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ state: "FAILED" }),
    });
    expect(patched.status).toBe(200);
    started.splice(started.indexOf(first), 1);
    await first.server?.close();

    // The second start keeps the data, with the change; the first start's key was replaced by the new one.
    const second = await run("--port", "0", "--pglite-dir", dir, "--api-key", "cak_given-key", "--log-level", "silent");
    expect(second.out).toContain("the one given by --api-key");
    expect(second.out).not.toContain("cak_given-key");
    const found = (await (
      await search(second.server?.url as string, "cak_given-key", "type:cluster%20cl-train-01")
    ).json()) as {
      results: { cluster: { machines: { id: string; state: string }[] } }[];
    };
    expect(found.results[0]?.cluster.machines.find((m) => m.id === "cm-alpha-01")?.state).toBe("FAILED");
  });

  it("prints its version, and its help ends with examples and the exit statuses", async () => {
    const version = await run("--version");
    expect([version.exitCode, version.out.trim()]).toEqual([0, "1.0.0"]);
    const { out } = await run("--help");
    expect(out).toMatch(/-p, --port <port>[\s\S]*\(default: 4011;\s+env: COMPUTE_POSTGRES_PORT\)/);
    expect(out).toMatch(/--database-url <url>[\s\S]*env:\s+COMPUTE_POSTGRES_DATABASE_URL\)/);
    expect(out).toMatch(/Examples:\n {2}\$ compute-postgres/);
    expect(out).toMatch(/Exit status:\n {2}0 {2}.*\n {2}1 {2}.*\n {2}2 {2}.*--database-url/);
  });

  it("refuses a database URL that is not a postgres:// URL as every usage error is worded, password hidden, and 2", async () => {
    process.env.COMPUTE_POSTGRES_DATABASE_URL = "mysql://me:secret@db.example/compute";
    try {
      const { exitCode, err } = await run("--port", "0");
      expect(exitCode).toBe(2);
      expect(err).toBe(
        'error: COMPUTE_POSTGRES_DATABASE_URL must be a postgres:// or postgresql:// URL, such as postgres://me@localhost:5432/compute; got "mysql://***@db.example/compute"\n' +
          "(run compute-postgres --help for the options)\n",
      );
    } finally {
      delete process.env.COMPUTE_POSTGRES_DATABASE_URL;
    }
  });

  it("still reads every old unprefixed variable, with one deprecation line each", async () => {
    const dir = join(scratch, "old-names");
    const old = {
      PGLITE_DIR: dir,
      PORT: "0",
      CORS_ORIGINS: "https://old.example",
      SHUTDOWN_GRACE: "1234",
      SHUTDOWN_TIMEOUT: "5678",
    };
    Object.assign(process.env, old);
    try {
      const { exitCode, out, err, server, shutdown } = await run("--log-level", "silent");
      expect(exitCode).toBe(0);
      expect(err.trim().split("\n").sort()).toEqual(
        Object.keys(old)
          .map((name) => `compute-postgres: ${name} is deprecated; use COMPUTE_POSTGRES_${name}`)
          .sort(),
      );
      expect(out).toMatch(/^compute-postgres listening on http:\/\/127\.0\.0\.1:(?!4011)\d+ \(data: PGlite at /);
      expect(out).toContain("later starts keep it");
      expect(shutdown).toEqual({ graceMs: 1234, timeoutMs: 5678 });
      const key = /\n {2}(cak_\S+)\n/.exec(out)?.[1] ?? "";
      const res = await fetch(`${server?.url}/v1/resources/search?query=a`, {
        headers: { authorization: `Bearer ${key}`, origin: "https://old.example" },
      });
      expect(res.status).toBe(200);
      expect(res.headers.get("access-control-allow-origin")).toBe("https://old.example");
    } finally {
      for (const name of Object.keys(old)) delete process.env[name];
    }
  }, 120_000);

  it("still reads HOST, with a deprecation line: an address of no interface here fails its start", async () => {
    process.env.HOST = "192.0.2.1";
    try {
      const { exitCode, err } = await run("--port", "0");
      expect(exitCode).toBe(1);
      expect(err).toMatch(
        /^compute-postgres: HOST is deprecated; use COMPUTE_POSTGRES_HOST\ncompute-postgres: cannot start: .*192\.0\.2\.1/,
      );
    } finally {
      delete process.env.HOST;
    }
  });

  it("still reads DATABASE_URL, with a deprecation line, and names it in its error", async () => {
    process.env.DATABASE_URL = "mysql://me:secret@db.example/compute";
    try {
      const { exitCode, err } = await run("--port", "0");
      expect(exitCode).toBe(2);
      expect(err.split("\n")).toEqual(
        expect.arrayContaining([
          "compute-postgres: DATABASE_URL is deprecated; use COMPUTE_POSTGRES_DATABASE_URL",
          expect.stringMatching(/^error: DATABASE_URL must be a postgres:\/\//),
        ]),
      );
      expect(err).not.toContain("secret");
    } finally {
      delete process.env.DATABASE_URL;
    }
  });

  it("says in one line that the server of --database-url cannot be reached, password hidden, and exits 1", async () => {
    const { exitCode, err } = await run("--port", "0", "--database-url", "postgres://me:secret@127.0.0.1:1/compute");
    expect(exitCode).toBe(1);
    expect(err).toMatch(
      /^compute-postgres: cannot reach the PostgreSQL server of --database-url \(postgres:\/\/me:\*\*\*@127\.0\.0\.1:1\/compute\): .*ECONNREFUSED.*\n$/,
    );
  });

  it("refuses a PGlite directory in use with one line, and takes over a stale lock", async () => {
    const dir = join(scratch, "locked");
    const first = await run("--port", "0", "--pglite-dir", dir, "--log-level", "silent");
    expect(first.exitCode).toBe(0);
    const second = await run("--port", "0", "--pglite-dir", dir, "--log-level", "silent");
    expect(second.exitCode).toBe(1);
    expect(second.err).toBe(
      `compute-postgres: the PGlite directory ${dir} is in use by process ${process.pid} (this one): one process at a time; stop it, or use another directory\n`,
    );
    started.splice(started.indexOf(first), 1);
    await first.server?.close();
    expect(existsSync(join(dir, "compute-postgres.pid"))).toBe(false);

    // A lock left by a process that is gone (killed) is stale: the next start takes it over.
    const stale = join(scratch, "stale");
    mkdirSync(stale);
    writeFileSync(join(stale, "compute-postgres.pid"), "2147483646\n");
    const after = await run("--port", "0", "--pglite-dir", stale, "--log-level", "silent");
    expect(after.exitCode).toBe(0);
    expect(readFileSync(join(stale, "compute-postgres.pid"), "utf8").trim()).toBe(String(process.pid));
  });

  it("checks its port before preparing the database: a taken port fails at once, nothing migrated", async () => {
    const taken = createServer().listen(0, "127.0.0.1");
    await once(taken, "listening");
    const { port } = taken.address() as { port: number };
    try {
      const dir = join(scratch, "never-opened");
      const { exitCode, err } = await run("--port", String(port), "--pglite-dir", dir, "--generate", "20000");
      expect(exitCode).toBe(1);
      expect(err).toMatch(new RegExp(`^compute-postgres: cannot start: .*EADDRINUSE.*${port}\\n$`));
      expect(existsSync(join(dir, "PG_VERSION"))).toBe(false);
    } finally {
      taken.close();
    }
  });

  it("the bin serves until SIGTERM, then exits with 0", async () => {
    const bin = fileURLToPath(new URL("../src/bin.ts", import.meta.url));
    const child = spawn(
      process.execPath,
      ["--conditions=@compute-api/source", "--import", "tsx", bin, "--port", "0", "--log-level", "warn"],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => (out += chunk));
    const exited = once(child, "exit");
    try {
      // PGlite's start, the migrations and the data: up to 3 minutes on a busy machine, for a hang.
      const deadline = Date.now() + 180_000;
      while (!/listening on (\S+)/.test(out) && Date.now() < deadline && child.exitCode === null)
        await new Promise((resolve) => setTimeout(resolve, 100));
      const url = /listening on (\S+)/.exec(out)?.[1];
      const key = /\n {2}(cak_\S+)\n/.exec(out)?.[1];
      expect(url && key).toBeTruthy();
      expect((await search(url as string, key as string)).status).toBe(200);
      child.kill("SIGTERM");
      const [code] = await exited;
      expect(code).toBe(0);
      expect(out).toContain("compute-postgres: SIGTERM, draining");
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    }
  }, 270_000);
});
