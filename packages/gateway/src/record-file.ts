/**
 * The recording's file on disk (see record.ts). One writer at a time: a lock file beside the recording
 * (`<file>.lock`, the runtime's takePidLock) holds the writer's pid; a second gateway is refused while that process
 * lives, and the lock of a process that died without removing it is taken over. Each write is whole and goes through no
 * link someone planted: a temporary file of an unpredictable name beside the recording, created exclusively and never
 * through a symlink (O_CREAT|O_EXCL|O_NOFOLLOW), synced, then renamed over the recording (a rename replaces a link at
 * the recording's name, never its target); what a failed write leaves is removed.
 */
import { randomBytes } from "node:crypto";
import { constants } from "node:fs";
import { open, rename, rm } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { PidLockHeld, takePidLock } from "@compute-api/runtime";

/** The refusal of a recording at start (compute-gateway exits 2): its file cannot be written, or has another writer. */
export class RecordingRefused extends Error {
  override readonly name = "RecordingRefused";
}

/** Created here, or not at all: never an existing file, never through a symlink (O_NOFOLLOW where the OS has it). */
const exclusive = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0);

/** Creates `path` exclusively with `text` in it, synced to the disk; a failed write removes what it created. */
async function createWith(path: string, text: string): Promise<void> {
  const handle = await open(path, exclusive, 0o600);
  try {
    try {
      await handle.writeFile(text);
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch (error) {
    await rm(path, { force: true });
    throw error;
  }
}

/** Writes `text` as the whole of `file`: to a new temporary file beside it, renamed over it. */
export async function writeWhole(file: string, text: string): Promise<void> {
  const temporary = join(dirname(file), `${basename(file)}.${randomBytes(12).toString("hex")}.tmp`);
  await createWith(temporary, text);
  try {
    await rename(temporary, file);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}

/**
 * Takes the lock of the recording `file` (`<file>.lock`, the runtime's pid lock) for this process; returns its
 * release. Throws a RecordingRefused when the directory cannot be written (missing, not a directory, not writable)
 * or another live process holds the lock.
 */
export function lockRecording(file: string): () => void {
  try {
    return takePidLock(`${file}.lock`);
  } catch (error) {
    if (!(error instanceof PidLockHeld))
      throw new RecordingRefused(`--record ${file}: cannot write in ${dirname(file)}: ${(error as Error).message}`);
    throw new RecordingRefused(
      error.pid === undefined
        ? `--record ${file}: ${error.message}`
        : `--record ${file}: process ${error.pid} is recording into it (its lock: ${error.lock})`,
    );
  }
}
