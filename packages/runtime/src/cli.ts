/**
 * `@compute-api/runtime/cli`: what the five commands (compute-stub, compute-gateway, compute-conformance,
 * compute-mcp, compute-postgres) share on their command lines — one implementation of each shared flag, of the
 * variable of every flag, of their usage errors, of their help's defaults, examples and exit statuses, of the
 * version, and of the old names that still work.
 */
import { readFileSync } from "node:fs";
import { CommanderError, InvalidArgumentError, Option } from "commander";
import { unprefixed } from "./cli-env.js";
import { parseOrigins } from "./cors.js";
import { drainDefaults } from "./drain.js";

export {
  CliCommand,
  type CliIo,
  type CommandLineOptions,
  commandLine,
  parseCommandLine,
  processIo,
} from "./cli-command.js";
export { sharedVariables, unprefixed, usageError, variableOf } from "./cli-env.js";
export { defaultText, describeCommand, exitCodes, type HelpEpilogue } from "./cli-help.js";
export { envSourceOf, type Renames, sourceOf } from "./cli-renames.js";
export { apiKeyOption, required, secretOption, serviceUrlOption, urlOption } from "./cli-values.js";

/**
 * A commander argument parser of a whole number from `min` to `max` (digits only: no sign, fraction or
 * exponent); anything else is refused with one wording, whichever command reads it. `or` names another value the
 * flag takes (`auto`), so that the message offers it too.
 */
export function integerFlag(min: number, max = Number.MAX_SAFE_INTEGER, or?: string): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (!/^\d+$/.test(value.trim()) || n < min || n > max)
      throw new InvalidArgumentError(`must be a whole number from ${min} to ${max}${or ? `, or ${or}` : ""}.`);
    return n;
  };
}

/** Origins of `--cors-origins`, comma-separated or repeated; `*` for any. */
export const origins = (value: string, previous: string[] | undefined): string[] => {
  try {
    return parseOrigins(value, previous);
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message);
  }
};

/** The log levels of pino, most severe first, and `silent`. */
export const logLevels = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;

/** `--log-level <level>` (LOG_LEVEL, default info), read as `logLevel`. */
export function logLevelOption(): Option {
  return new Option("--log-level <level>", "log level of the JSON log lines (pino)").choices(logLevels).default("info");
}

/** `-p, --port <port>`, 0 for any free port. */
export function portOption(defaultPort: number): Option {
  return new Option("-p, --port <port>", "port to listen on (0: any free port)")
    .default(defaultPort)
    .argParser(integerFlag(0, 65535));
}

/** `--host <host>`, default 127.0.0.1; `what` says when it is used (`address to listen on with --http`). */
export function hostOption(what = "address to listen on"): Option {
  return new Option("--host <host>", what).default("127.0.0.1");
}

/**
 * The version of the package whose module calls it: `packageVersion(import.meta.url)` reads `../package.json`
 * from the module's folder (src/ or dist/, one folder below the package's root).
 */
export function packageVersion(moduleUrl: string): string {
  return (JSON.parse(readFileSync(new URL("../package.json", moduleUrl), "utf8")) as { version: string }).version;
}

/** The exit status of a command-line error: 0 after --help or --version, 2 for a bad flag; undefined for anything else. */
export function usageExitCode(error: unknown): number | undefined {
  if (!(error instanceof CommanderError)) return undefined;
  return error.exitCode === 0 ? 0 : 2;
}

/**
 * Runs a command's `parse` of its command line: its result, or the exit status of a command-line error (0 after
 * --help or --version, which commander has printed, 2 for a bad flag, which it has explained); anything else is thrown.
 */
export function usageOr<T extends object>(parse: () => T): T | number {
  try {
    return parse();
  } catch (error) {
    const exitCode = usageExitCode(error);
    if (exitCode === undefined) throw error;
    return exitCode;
  }
}

/**
 * The start of a command's `main`: its parsed command line, or undefined once the exit status of a command-line
 * error is set (`usageOr`); a command that goes on is kept alive when the reader of its output goes away
 * (`dropOutputWithoutReader`).
 */
export function parseOrExit<T extends object>(parse: () => T): T | undefined {
  const config = usageOr(parse);
  if (typeof config === "number") {
    process.exitCode = config;
    return undefined;
  }
  dropOutputWithoutReader();
  return config;
}

/**
 * The drain's flags, the same on every command that serves: `--shutdown-grace <ms>` and `--shutdown-timeout <ms>`,
 * read as `shutdownGrace` and `shutdownTimeout`.
 */
export function shutdownFlags(): Option[] {
  return [
    new Option("--shutdown-grace <ms>", "after SIGTERM, how long connections that stay idle are kept open")
      .default(drainDefaults.graceMs)
      .argParser(integerFlag(0)),
    new Option("--shutdown-timeout <ms>", "after SIGTERM, how long requests in flight may run before they are cut")
      .default(drainDefaults.timeoutMs)
      .argParser(integerFlag(0)),
  ];
}

/** The old unprefixed variables of the flags every serving command has, still read with a deprecation line. */
export const formerServerVariables = unprefixed("--port", "--host", "--shutdown-grace", "--shutdown-timeout");

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
