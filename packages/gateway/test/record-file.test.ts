/**
 * The recording's file under attack and under failure, with the real gateway in front of the real stub: a symlink
 * planted where its temporary file or the recording would be is never written through; a path that cannot be
 * written, or a second writer, refuses the start (exit 2, the path or the writer named) before anything is served;
 * the lock of a writer that died is taken over; a last write that fails (past the process's file-size limit, as a
 * full disk fails it) fails the exit and leaves no temporary file behind.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { lstatSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { builtinFixtures } from "@compute-api/fixtures";
import { createApp } from "@compute-api/stub-server";
import { type Listening, listenLocal } from "@compute-api/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runGateway } from "./support/command.js";
import { testGateway } from "./support/servers.js";

const keys = { alice: "cak_record-file-alice-01" };
const types = [
  "billingAccount",
  "project",
  "cluster",
  "machine",
  "virtualMachine",
  "disk",
  "image",
  "network",
  "volume",
];

let upstream: Listening;
beforeAll(async () => {
  upstream = await listenLocal((await createApp({ fixtures: builtinFixtures(), apiKeys: keys })).app);
});
afterAll(async () => {
  await upstream?.close();
});

/** Searches every type through the gateway at `base`, so that the recording holds the stub's whole data set. */
async function searchEverything(base: string): Promise<void> {
  for (const type of types) {
    const res = await fetch(`${base}/v1/resources/search?query=type:${type}`, {
      headers: { authorization: `Bearer ${keys.alice}` },
    });
    expect(res.status, type).toBe(200);
    await res.arrayBuffer();
  }
}

/** Starts compute-gateway recording into `file`, expecting it to refuse: exit 2, nothing served; its output. */
async function refusedStart(file: string): Promise<string> {
  const args = ["--upstream", upstream.url, "--port", "0", "--record", file];
  const { code, output } = await runGateway(args, {}, { until: /compute-gateway listening/ }).done;
  expect(output).not.toMatch(/compute-gateway listening/);
  expect(code).toBe(2);
  return output;
}

const newDirectory = (name: string) => mkdtempSync(join(tmpdir(), `gateway-record-${name}-`));

describe("links planted in the recording's directory", () => {
  it("are never written through: the link's target is unchanged, the recording is a file of its own", async () => {
    const directory = newDirectory("links");
    const victim = join(directory, "victim.txt");
    writeFileSync(victim, "precious\n");
    const file = join(directory, "session.yaml");
    // The temporary file's names a writer of this process could use (`<file>.<pid>.tmp` and the like), and the
    // recording's own name.
    const planted = [
      ...[process.pid, process.pid + 1, 1, 0].map((pid) => `${file}.${pid}.tmp`),
      `${file}.tmp`,
      `${file}~`,
      file,
    ];
    for (const name of planted) symlinkSync(victim, name);
    const gateway = await testGateway({ upstream: upstream.url, record: file });
    try {
      await searchEverything(gateway.url);
    } finally {
      await gateway.close();
    }
    expect(readFileSync(victim, "utf8")).toBe("precious\n");
    expect(lstatSync(file).isFile()).toBe(true);
    expect(readFileSync(file, "utf8")).toMatch(/^# Recorded by compute-gateway --record/);
    // Nothing else is left: no temporary file, no lock.
    expect(readdirSync(directory).sort()).toEqual(
      [...planted.filter((name) => name !== file), file, victim].map((p) => p.slice(directory.length + 1)).sort(),
    );
  });
});

describe("a recording that cannot be written, or has another writer", () => {
  const directory = newDirectory("refused");
  const regular = join(directory, "a-file");
  writeFileSync(regular, "");

  it.concurrent.each([
    ["in a missing directory", join(directory, "missing", "session.yaml")],
    ["under a regular file", join(regular, "session.yaml")],
  ])("refuses the start %s: exit 2 naming the path, nothing served", async (_name, file) => {
    expect(await refusedStart(file)).toContain(`--record ${file}: cannot write in`);
  });

  it("refuses a second gateway recording into the same file: exit 2 naming the first one's process", async () => {
    const file = join(directory, "shared.yaml");
    const first = await testGateway({ upstream: upstream.url, record: file });
    try {
      expect(readFileSync(`${file}.lock`, "utf8")).toBe(`${process.pid}\n`);
      expect(await refusedStart(file)).toContain(`--record ${file}: process ${process.pid} is recording into it`);
    } finally {
      await first.close();
    }
    // The first one's lock is gone with it.
    expect(readdirSync(directory)).not.toContain("shared.yaml.lock");
  });

  it("takes over the lock of a writer that died without removing it", async () => {
    const file = join(directory, "stale.yaml");
    const dead = spawn(process.execPath, ["-e", ""]);
    await once(dead, "exit");
    writeFileSync(`${file}.lock`, `${dead.pid}\n`);
    const gateway = await testGateway({ upstream: upstream.url, record: file });
    try {
      expect(readFileSync(`${file}.lock`, "utf8")).toBe(`${process.pid}\n`);
    } finally {
      await gateway.close();
    }
    expect(readdirSync(directory)).not.toContain("stale.yaml.lock");
  });
});

describe("a last write that fails", () => {
  it("fails the gateway's exit and leaves no temporary file", async () => {
    const directory = newDirectory("full");
    const file = join(directory, "session.yaml");
    // 8 blocks: 4 KiB in a POSIX shell, 8 KiB in bash; the empty recording fits, the stub's whole data set does not.
    const gateway = runGateway(
      ["--upstream", upstream.url, "--port", "0", "--record", file],
      {},
      {
        until: /compute-gateway listening/,
        fileSizeBlocks: 8,
      },
    );
    const started = await gateway.done;
    expect(started.code, started.output).toBeNull();
    const url = /"url":"(http:\/\/[^"]+)"/.exec(started.output)?.[1] ?? "";
    await searchEverything(url);
    const exited = once(gateway.child, "exit");
    gateway.child.kill("SIGTERM");
    const [code] = (await exited) as [number | null];
    expect(code, gateway.output()).toBe(1);
    expect(gateway.output()).toMatch(/the recording cannot be written/);
    // The recording written at start is left as it was; no temporary file, no lock.
    expect(readdirSync(directory)).toEqual(["session.yaml"]);
    expect(readFileSync(file, "utf8")).toMatch(/: 0 resources/);
  }, 60_000);
});
