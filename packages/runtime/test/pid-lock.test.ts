/** The pid lock: one holder at a time, a dead holder's lock taken over, nothing followed through a planted link. */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PidLockHeld, takePidLock } from "../src/pid-lock.js";

const directory = mkdtempSync(join(tmpdir(), "runtime-pid-lock-"));

/** The pid of a process that has exited. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ["-e", ""]);
  await once(child, "exit");
  return child.pid ?? 0;
}

describe("takePidLock", () => {
  it("holds the lock with this process's pid, refuses a second take, and removes it when released", () => {
    const lock = join(directory, "a.lock");
    const release = takePidLock(lock);
    expect(readFileSync(lock, "utf8")).toBe(`${process.pid}\n`);
    expect(() => takePidLock(lock)).toThrow(new PidLockHeld(lock, process.pid));
    release();
    expect(existsSync(lock)).toBe(false);
    takePidLock(lock)();
  });

  it("refuses a lock a live process holds, naming it", () => {
    const lock = join(directory, "live.lock");
    writeFileSync(lock, `${process.ppid}\n`);
    expect(() => takePidLock(lock)).toThrow(`${lock} is held by process ${process.ppid}`);
    expect(readFileSync(lock, "utf8")).toBe(`${process.ppid}\n`);
  });

  it.each([
    ["a process that has exited", deadPid],
    ["this process's own pid, not held by it (a container's pid 1, reused)", async () => process.pid],
  ])("takes over the lock of %s", async (_name, pid) => {
    const lock = join(directory, `stale-${Math.random()}.lock`);
    writeFileSync(lock, `${await pid()}\n`);
    const release = takePidLock(lock);
    expect(readFileSync(lock, "utf8")).toBe(`${process.pid}\n`);
    release();
  });

  it("follows no link planted at the lock's name, and refuses it", () => {
    const victim = join(directory, "victim");
    writeFileSync(victim, "precious\n");
    const lock = join(directory, "linked.lock");
    symlinkSync(victim, lock);
    expect(() => takePidLock(lock)).toThrow(PidLockHeld);
    expect(readFileSync(victim, "utf8")).toBe("precious\n");
  });

  it("throws the file system's error where it cannot be created", () => {
    expect(() => takePidLock(join(directory, "missing", "x.lock"))).toThrow(/ENOENT/);
  });
});
