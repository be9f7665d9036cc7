/** Running a server's command until SIGINT or SIGTERM, then draining it. */

import { flushStdoutLog, onShutdownSignal } from "@compute-api/runtime";
import { dropOutputWithoutReader } from "@compute-api/runtime/cli";
import type { ServerFlags } from "./server-command.js";

/** How long a drain keeps idle connections (`graceMs`) and lets requests run (`timeoutMs`). */
export interface DrainTimes {
  graceMs: number;
  timeoutMs: number;
}

/** The drain times --shutdown-grace and --shutdown-timeout give. */
export const drainTimesOf = (flags: Pick<ServerFlags, "shutdownGrace" | "shutdownTimeout">): DrainTimes => ({
  graceMs: flags.shutdownGrace,
  timeoutMs: flags.shutdownTimeout,
});

/** A listening server a command runs: it drains on the first SIGTERM or SIGINT. */
export interface DrainingServer {
  /**
   * The contract's drain (`/readyz` 503, `Connection: close`, idle connections closed after the grace period,
   * requests cut at the deadline), then what the server holds is released.
   */
  drain(times: DrainTimes): Promise<void>;
}

/**
 * Runs a command's result until SIGINT or SIGTERM: exits with its code when nothing listens; else, on the first
 * signal, drains as --shutdown-grace and --shutdown-timeout say (SIGINT without the grace) and exits 0; a second
 * signal does not cut it short.
 */
export function runUntilSignal(
  name: string,
  running: DrainingServer | undefined,
  exitCode: number,
  shutdown: DrainTimes = drainTimesOf({ shutdownGrace: 0, shutdownTimeout: 0 }),
): void {
  if (!running) process.exit(exitCode);
  dropOutputWithoutReader();
  onShutdownSignal((signal) => {
    process.stdout.write(`${name}: ${signal}, draining (a second signal does not cut it short)\n`);
    // Ctrl-C is a person at a terminal, not a load balancer: idle connections (a browser's) are closed at once.
    const times = signal === "SIGINT" ? { ...shutdown, graceMs: 0 } : shutdown;
    void running.drain(times).then(async () => {
      process.stdout.write(`${name}: stopped, no connection left\n`);
      await flushStdoutLog();
      process.exit(0);
    });
  });
}
