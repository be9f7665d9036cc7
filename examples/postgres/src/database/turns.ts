/**
 * Turns for a resource that serves one caller at a time (PGlite: one query at a time, in the process's own
 * thread), in order of arrival: a caller waits at most `acquireTimeoutMs` for its turn, then is answered 503 with
 * Retry-After rather than queued without end; a caller whose signal fires while it waits leaves the line.
 */
import { abortedError, databaseUnavailable } from "./database-errors.js";

/** Runs work one at a time. */
export interface Turns {
  /** Runs `work` when its turn comes; never starts it once the signal has fired. */
  run<T>(work: () => Promise<T>, signal?: AbortSignal): Promise<T>;
  /** How many callers wait for their turn. */
  readonly waiting: number;
}

/** A line of callers, each waiting at most `acquireTimeoutMs`. */
export function oneAtATime(acquireTimeoutMs: number): Turns {
  let busy = false;
  const line: (() => void)[] = [];
  const next = () => {
    const start = line.shift();
    if (start) start();
    else busy = false;
  };
  const turn = (signal: AbortSignal | undefined) =>
    new Promise<void>((resolve, reject) => {
      if (!busy) {
        busy = true;
        resolve();
        return;
      }
      const start = () => {
        done();
        resolve();
      };
      const leave = (error: Error) => {
        done();
        line.splice(line.indexOf(start), 1);
        reject(error);
      };
      const timer = setTimeout(
        () => leave(databaseUnavailable(new Error(`no turn at the database within ${acquireTimeoutMs} ms`))),
        acquireTimeoutMs,
      );
      const onAbort = () => leave(abortedError(signal as AbortSignal));
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      line.push(start);
    });
  return {
    run: async (work, signal) => {
      if (signal?.aborted) throw abortedError(signal);
      await turn(signal);
      try {
        return await work();
      } finally {
        next();
      }
    },
    get waiting() {
      return line.length;
    },
  };
}
