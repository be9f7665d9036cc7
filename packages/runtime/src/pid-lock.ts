/**
 * One process at a time on something a command writes (the gateway's recording, the Postgres example's PGlite
 * directory): a lock file, created exclusively and never through a symlink (O_CREAT|O_EXCL|O_NOFOLLOW), that holds
 * its holder's pid and is removed when released. A lock whose process is gone (killed, crashed) is stale and taken
 * over; so is one holding this process's own pid that this process does not hold (a container's pid 1, reused).
 */
import { closeSync, constants, fstatSync, fsyncSync, openSync, readSync, rmSync, writeSync } from "node:fs";
import { resolve } from "node:path";

/** A lock held by a live process (its pid), or one whose file names no process (undefined). */
export class PidLockHeld extends Error {
  override readonly name = "PidLockHeld";
  constructor(
    readonly lock: string,
    readonly pid: number | undefined,
  ) {
    super(
      pid === undefined
        ? `${lock} exists and names no process: remove it if nothing holds it`
        : `${lock} is held by process ${pid}${pid === process.pid ? " (this one)" : ""}`,
    );
  }
}

/** The locks this process holds (a second take in the same process is refused too). */
const held = new Set<string>();

const exclusive = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0);
/** Read without following a link, and without waiting on a FIFO planted at the name. */
const inspect = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

/** The text of a lock file; undefined when it is gone, is no regular file or cannot be read. */
function readLock(path: string): string | undefined {
  let fd: number;
  try {
    fd = openSync(path, inspect);
  } catch {
    return undefined;
  }
  try {
    if (!fstatSync(fd).isFile()) return undefined;
    const buffer = Buffer.alloc(32);
    return buffer.toString("utf8", 0, readSync(fd, buffer, 0, buffer.length, 0));
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** Whether a process of this id lives (one of another user's too). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Creates the lock with this process's pid in it, synced; a failed write removes it. */
function create(path: string): void {
  const fd = openSync(path, exclusive, 0o600);
  try {
    writeSync(fd, `${process.pid}\n`);
    fsyncSync(fd);
  } catch (error) {
    rmSync(path, { force: true });
    throw error;
  } finally {
    closeSync(fd);
  }
}

/**
 * Takes the lock file `lock` for this process; returns its release. Throws PidLockHeld when a live process holds it
 * (or it names none), and the file system's error when it cannot be created (a missing directory, no permission).
 */
export function takePidLock(lock: string): () => void {
  const path = resolve(lock);
  let pid: number | undefined;
  // Three tries: a stale lock is removed, and another process may take it over first (then it is live).
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      create(path);
      held.add(path);
      return () => {
        held.delete(path);
        if (readLock(path) === `${process.pid}\n`) rmSync(path, { force: true });
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    const text = readLock(path);
    const number = Number(text?.trim());
    pid = text !== undefined && Number.isInteger(number) && number > 0 ? number : undefined;
    if (pid === undefined || (pid === process.pid ? held.has(path) : alive(pid))) throw new PidLockHeld(lock, pid);
    // Stale: removed, unless another process took it over since.
    if (readLock(path) === text) rmSync(path, { force: true });
  }
  throw new PidLockHeld(lock, pid);
}
