/**
 * One process at a time on a PGlite directory. PGlite has no lock of its own, and two processes writing one
 * directory corrupt it; so the directory holds a lock file with the pid of the process that has it open (the
 * runtime's takePidLock). A lock whose process is gone (killed, crashed) is stale and taken over.
 */
import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { PidLockHeld, takePidLock } from "@compute-api/runtime";

/** The lock file inside the directory. */
export const lockFileName = "compute-postgres.pid";

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

/** Takes the directory (made if missing) for this process; throws PgliteDirInUse when a live process holds it. Returns the release. */
export function lockPgliteDir(dir: string): () => void {
  const path = resolve(dir);
  mkdirSync(path, { recursive: true });
  try {
    return takePidLock(join(path, lockFileName));
  } catch (error) {
    // A lock that names no process (emptied by hand, or a crash while it was made) is the runtime's own message.
    if (error instanceof PidLockHeld && error.pid !== undefined) throw new PgliteDirInUse(dir, error.pid);
    throw error;
  }
}
