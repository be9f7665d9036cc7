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

/** What a server's command resolves to: its exit status, and the server it left listening, if any. */
export interface CommandRun {
  exitCode: number;
  server?: DrainingServer | undefined;
  shutdown?: DrainTimes | undefined;
}

/**
 * Runs a command until SIGINT or SIGTERM: exits with its code when nothing listens; else, on the first signal,
 * drains as --shutdown-grace and --shutdown-timeout say (SIGINT without the grace) and exits 0; a second signal does
 * not cut it short. It listens for the signals before the command starts, since the command prints its lines, "kill
 * <pid>" among them, once it listens: a signal sent on reading them, or while it starts, drains it once it has
 * started, where Node's default would end it at once.
 */
export function runUntilSignal(name: string, run: Promise<CommandRun>): void {
  let started: { server: DrainingServer; shutdown: DrainTimes } | undefined;
  let received: NodeJS.Signals | undefined;
  const stop = (signal: NodeJS.Signals) => {
    if (!started) return;
    const { server, shutdown } = started;
    process.stdout.write(`${name}: ${signal}, draining (a second signal does not cut it short)\n`);
    // Ctrl-C is a person at a terminal, not a load balancer: idle connections (a browser's) are closed at once.
    const times = signal === "SIGINT" ? { ...shutdown, graceMs: 0 } : shutdown;
    void server.drain(times).then(async () => {
      process.stdout.write(`${name}: stopped, no connection left\n`);
      await flushStdoutLog();
      process.exit(0);
    });
  };
  const forget = onShutdownSignal((signal) => {
    received = signal;
    stop(signal);
  });
  void run.then(({ exitCode, server, shutdown = drainTimesOf({ shutdownGrace: 0, shutdownTimeout: 0 }) }) => {
    if (!server) {
      forget();
      process.exit(exitCode);
    }
    dropOutputWithoutReader();
    started = { server, shutdown };
    if (received) stop(received);
  });
}
