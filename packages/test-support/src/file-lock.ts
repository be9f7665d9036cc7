/**
 * A machine-wide lock held in a file, for work that several test processes may start at once and that must run once
 * (an image build, a download): the file holds its holder's pid; a dead holder's lock is taken over, one process at a
 * time (see takeOver).
 */
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { isRunning } from "./processes.js";

/**
 * Runs `work` while holding the lock file `lock`, waiting (polling every 500 ms) while a live process holds it; fails
 * after waiting `boundMs` for another holder.
 */
export async function withFileLock<T>(lock: string, boundMs: number, work: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + boundMs;
  for (;;) {
    try {
      writeFileSync(lock, `${process.pid}\n`, { flag: "wx" });
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    const holder = contentOf(lock);
    if (holder === undefined) continue;
    // An empty file is a lock being written, not a dead holder's; a dead holder's lock that another process is taking
    // over is waited for like a live holder's.
    if (holder !== "" && !isRunning(Number(holder)) && takeOver(lock, holder)) continue;
    if (Date.now() > deadline) throw new Error(`waited too long for process ${holder}, which holds ${lock}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  try {
    return await work();
  } finally {
    rmSync(lock, { force: true });
  }
}

/**
 * Removes `lock`, which the dead process `holder` held, unless another process has taken it over since. Several
 * waiters see a dead holder at once: each removing the file would let the later ones remove the lock that the first
 * had taken meanwhile, and two would run the work (two fetches of one Node binary, seen under load). So the removal is
 * done under a second lock file, `<lock>.takeover`, after reading again that the dead holder still holds `lock`. A
 * takeover file whose own writer died (between two calls, here) is removed in turn. False when another process is
 * taking the lock over.
 */
function takeOver(lock: string, holder: string): boolean {
  const takeover = `${lock}.takeover`;
  try {
    writeFileSync(takeover, `${process.pid}\n`, { flag: "wx" });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    const other = contentOf(takeover);
    if (other !== undefined && other !== "" && !isRunning(Number(other))) rmSync(takeover, { force: true });
    return false;
  }
  try {
    if (contentOf(lock) === holder) rmSync(lock, { force: true });
    return true;
  } finally {
    rmSync(takeover, { force: true });
  }
}

/** What the file `path` holds, trimmed; undefined when there is no such file. */
function contentOf(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8").trim();
  } catch {
    return undefined;
  }
}
