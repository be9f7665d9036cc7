/**
 * A machine-wide lock held in a file, for work that several test processes may start at once and that must run once
 * (an image build, a download): the file holds its holder's pid; a dead holder's lock is taken over.
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
    let holder = "";
    try {
      holder = readFileSync(lock, "utf8").trim();
    } catch {
      continue;
    }
    // An empty file is a lock being written, not a dead holder's.
    if (holder !== "" && !isRunning(Number(holder))) {
      rmSync(lock, { force: true });
      continue;
    }
    if (Date.now() > deadline) throw new Error(`waited too long for process ${holder}, which holds ${lock}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  try {
    return await work();
  } finally {
    rmSync(lock, { force: true });
  }
}
