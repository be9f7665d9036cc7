/**
 * One process at a time on a PGlite directory. PGlite has no lock of its own, and two processes writing one
 * directory corrupt it; so the directory holds a lock file with the pid of the process that has it open. A lock
 * whose process is gone (killed, crashed) is stale and taken over.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";

/** The lock file inside the directory. */
export const lockFileName = "compute-postgres.pid";

/** The directories this process holds (a second open in the same process is refused too). */
const held = new Set<string>();

/** A PGlite directory another process (or this one) has open. */
export class PgliteDirInUse extends Error {
  override readonly name = "PgliteDirInUse";
  constructor(
    readonly dir: string,
    readonly pid: number,
  ) {
    super(
      `the PGlite directory ${dir} is in use by process ${pid}${pid === process.pid ? " (this one)" : ""}: one process at a time; stop it, or use another directory`,
    );
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

function holder(file: string): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(file, "utf8"), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** Takes the directory (made if missing) for this process; throws PgliteDirInUse when a live process holds it. Returns the release. */
export function lockPgliteDir(dir: string): () => void {
  const path = resolve(dir);
  const file = join(path, lockFileName);
  mkdirSync(path, { recursive: true });
  for (let attempt = 0; ; attempt++) {
    try {
      writeFileSync(file, `${process.pid}\n`, { flag: "wx" });
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const pid = holder(file);
      const live = pid !== undefined && (pid === process.pid ? held.has(path) : alive(pid));
      if (live || attempt >= 2) throw new PgliteDirInUse(dir, pid ?? 0);
      // Stale: its process is gone. Two processes taking it over at once: one writes it, the other finds it live.
      rmSync(file, { force: true });
    }
  }
  held.add(path);
  return () => {
    held.delete(path);
    if (holder(file) === process.pid) rmSync(file, { force: true });
  };
}
