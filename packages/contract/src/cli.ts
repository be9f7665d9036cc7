/** What the commands (compute-stub, compute-gateway, compute-conformance, compute-postgres) share on their command lines. */
import { InvalidArgumentError, Option } from "commander";
import { drainDefaults } from "./drain.js";

/**
 * A commander argument parser of a whole number from `min` to `max` (digits only: no sign, fraction or
 * exponent); anything else is refused with one wording, whichever command reads it.
 */
export function integerFlag(min: number, max = Number.MAX_SAFE_INTEGER): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (!/^\d+$/.test(value.trim()) || n < min || n > max)
      throw new InvalidArgumentError(`must be a whole number from ${min} to ${max}.`);
    return n;
  };
}

/**
 * The drain's flags, the same on every command that serves: `--shutdown-grace <ms>` (SHUTDOWN_GRACE) and
 * `--shutdown-timeout <ms>` (SHUTDOWN_TIMEOUT), read as `shutdownGrace` and `shutdownTimeout`.
 */
export function shutdownFlags(): Option[] {
  return [
    new Option("--shutdown-grace <ms>", "after SIGTERM, how long connections that stay idle are kept open")
      .env("SHUTDOWN_GRACE")
      .default(drainDefaults.graceMs)
      .argParser(integerFlag(0)),
    new Option("--shutdown-timeout <ms>", "after SIGTERM, how long requests in flight may run before they are cut")
      .env("SHUTDOWN_TIMEOUT")
      .default(drainDefaults.timeoutMs)
      .argParser(integerFlag(0)),
  ];
}

/**
 * Keeps a command alive when the reader of its standard output or error goes away (`EPIPE`: the `| pino-pretty`
 * or `| tee` it writes to died): what it prints from then on is dropped, and it goes on serving and draining as it
 * would, instead of dying of an unhandled 'error' event with requests in flight.
 */
export function dropOutputWithoutReader(): void {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code !== "EPIPE") throw error;
    });
  }
}
