/**
 * The environment variable of every flag, by one rule: `--some-name` of `compute-x` is `COMPUTE_X_SOME_NAME`, so that
 * a variable exported for one command never moves another; the few flags that mean the same thing for every command
 * that has them share one unprefixed variable.
 */
import { type Command, InvalidArgumentError, type Option } from "commander";

/** Flags whose variable every command that has them shares (and the standard `OTEL_*`, read as they are). */
export const sharedVariables: Readonly<Record<string, string>> = {
  "--api-key": "COMPUTE_API_KEY",
  "--base-url": "COMPUTE_BASE_URL",
  "--log-level": "LOG_LEVEL",
};

/** `--timeout-ms` → `TIMEOUT_MS`. */
const upperSnake = (long: string): string => long.replace(/^--/, "").replace(/-/g, "_").toUpperCase();

/** The variable of a command's flag: `variableOf("compute-gateway", "--timeout-ms")` is `COMPUTE_GATEWAY_TIMEOUT_MS`. */
export function variableOf(command: string, long: string): string {
  return sharedVariables[long] ?? `COMPUTE_${upperSnake(command.replace(/^compute-/, ""))}_${upperSnake(long)}`;
}

/** Old variables named as their flag without a prefix (`PORT` for `--port`), for the deprecations of a command. */
export function unprefixed(...longs: string[]): Record<string, string> {
  return Object.fromEntries(longs.map((long) => [upperSnake(long), long]));
}

/** Whether an option is a flag without a value (`--compress`, `--no-admin`). */
export const isBoolean = (option: Option): boolean => !option.required && !option.optional;

/** The values of a flag without a value that a variable may hold; anything else is refused. */
const booleans: Readonly<Record<string, boolean>> = {
  true: true,
  1: true,
  yes: true,
  on: true,
  false: false,
  0: false,
  no: false,
  off: false,
  "": false,
};

/** A variable's value for a flag without a value: true (the flag is given) or false; undefined when it is neither. */
export function booleanValue(raw: string): boolean | undefined {
  return booleans[raw.trim().toLowerCase()];
}

/** The message for a variable of a flag without a value that holds something else. */
export const booleanProblem = (variable: string, raw: string): string =>
  `${variable} must be true or false (1, 0, yes, no, on, off); got ${JSON.stringify(raw)}`;

/** Stops the command with a usage error: `error: <message>`, the hint to --help, and exit status 2. */
export function usageError(command: Command, message: string): never {
  return command.error(`error: ${message}`, { exitCode: 2, code: "compute.usage" });
}

/**
 * The value a variable gives an option, parsed as the flag's argument is (a bad one is a usage error, worded as
 * commander words its own); for a flag without a value, true or false as `booleanValue` reads it (a `--no-…` flag's
 * option is then false or true).
 */
export function envValue(command: Command, option: Option, raw: string, variable: string): unknown {
  if (isBoolean(option)) {
    const given = booleanValue(raw);
    if (given === undefined) usageError(command, booleanProblem(variable, raw));
    return option.negate ? !given : given;
  }
  if (!option.parseArg) return raw;
  try {
    return option.parseArg(raw, undefined);
  } catch (error) {
    if (!(error instanceof InvalidArgumentError)) throw error;
    return usageError(
      command,
      `option '${option.flags}' value '${raw}' from env '${variable}' is invalid. ${error.message}`,
    );
  }
}
