/**
 * The machine-wide lock file (src/file-lock.ts): processes that find a dead process's lock at the same moment take it
 * over one at a time, so the work they guard never runs twice at once. Eight processes, started together on a lock
 * left by a dead process, each log when the work begins and ends: the log is eight begin/end pairs, never two
 * overlapping. Before the takeover was serialised, two of three processes fetched the same Node binary under load.
 */
import { execFile, spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, expect, it } from "vitest";

const run = promisify(execFile);
const lockModule = fileURLToPath(new URL("../src/file-lock.ts", import.meta.url));

/** One process: waits for `startAt`, then holds the lock for 100 ms, logging its pid on entering and leaving. */
const program = `
import { appendFileSync } from "node:fs";
import { withFileLock } from ${JSON.stringify(lockModule)};
const [lock, log, startAt] = process.argv.slice(-3);
while (Date.now() < Number(startAt)) await new Promise((resolve) => setTimeout(resolve, 2));
await withFileLock(lock, 60_000, async () => {
  appendFileSync(log, "in " + process.pid + "\\n");
  await new Promise((resolve) => setTimeout(resolve, 100));
  appendFileSync(log, "out " + process.pid + "\\n");
});
`;

const dir = mkdtempSync(join(tmpdir(), "compute-api-file-lock-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it("a dead holder's lock is taken over by one of the processes waiting on it, the others waiting their turn", async () => {
  const lock = join(dir, "work.lock");
  const log = join(dir, "log");
  writeFileSync(join(dir, "program.mts"), program);
  writeFileSync(lock, `${spawnSync("true").pid}\n`);
  writeFileSync(log, "");
  // Late enough for every process to have loaded tsx and the module, however busy the machine.
  const startAt = Date.now() + 8_000;
  await Promise.all(
    Array.from({ length: 8 }, () =>
      run(process.execPath, ["--import", "tsx", join(dir, "program.mts"), lock, log, String(startAt)], {
        timeout: 90_000,
      }),
    ),
  );
  const lines = readFileSync(log, "utf8").trim().split("\n");
  expect(lines).toHaveLength(16);
  for (let i = 0; i < lines.length; i += 2) {
    const pid = lines[i]?.split(" ")[1];
    expect([lines[i], lines[i + 1]], lines.join("\n")).toEqual([`in ${pid}`, `out ${pid}`]);
  }
  expect(new Set(lines.map((line) => line.split(" ")[1])).size).toBe(8);
  // No lock and no takeover file are left.
  expect(readdirSync(dir).sort()).toEqual(["log", "program.mts"]);
}, 120_000);
