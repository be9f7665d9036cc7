/**
 * Old names of flags and variables that still work: each use prints one deprecation line on stderr, and the new
 * name wins when both are given.
 */
import { type Command, InvalidArgumentError, Option } from "commander";

/** A renamed environment variable (`STUB_API_KEY` → the variable of `--api-key`). */
export interface RenamedEnv {
  /** The old variable. */
  env: string;
  /** The attribute name of the option it now feeds, such as `apiKey`. */
  option: string;
}

/** A renamed flag, kept as a hidden option (`renamedFlag`). */
export interface RenamedFlag {
  /** The attribute name of the hidden old option, such as `corsOrigin`. */
  flag: string;
  /** The attribute name of the option it now feeds, such as `corsOrigins`. */
  option: string;
}

/** The variable that gave each option its value, where it was an old one. */
const oldSources = new WeakMap<Command, Map<string, string>>();

/** A hidden option under an old name (`--cors-origin <origins>`) that reads as `now` does. */
export function renamedFlag(flags: string, now: Option): Option {
  const option = new Option(flags, `deprecated: ${now.long}`).hideHelp();
  if (now.parseArg) option.argParser(now.parseArg);
  return option;
}

/** The variable that gave an option its value (its own, or an old name), if a variable did. */
export function envSourceOf(command: Command, option: string): string | undefined {
  const old = oldSources.get(command)?.get(option);
  if (old) return old;
  if (command.getOptionValueSource(option) !== "env") return undefined;
  return command.options.find((o) => o.attributeName() === option)?.envVar;
}

function optionNamed(command: Command, name: string): Option {
  const option = command.options.find((o) => o.attributeName() === name);
  if (!option) throw new Error(`no option ${name}`);
  return option;
}

/**
 * After parsing: takes the values of old flags and variables into their options, where the new name gave none,
 * and says once for each old name used that it is deprecated (on `warn`, prefixed with the command's name).
 * A bad value of an old variable is a usage error (a CommanderError, exit status 2), as a new one's is.
 */
export function applyRenames(
  command: Command,
  warn: (text: string) => void,
  { flags = [], env = [] }: { flags?: RenamedFlag[]; env?: RenamedEnv[] },
  environment: NodeJS.ProcessEnv = process.env,
): void {
  const name = command.name();
  for (const { flag, option } of flags) {
    const value: unknown = command.getOptionValue(flag);
    if (value === undefined) continue;
    const now = optionNamed(command, option);
    warn(`${name}: ${optionNamed(command, flag).long} is deprecated; use ${now.long}\n`);
    if (command.getOptionValueSource(option) !== "cli") command.setOptionValueWithSource(option, value, "cli");
  }
  for (const { env: old, option } of env) {
    const value = environment[old];
    if (value === undefined) continue;
    const now = optionNamed(command, option);
    warn(`${name}: ${old} is deprecated; use ${now.envVar ?? now.long}\n`);
    const source = command.getOptionValueSource(option);
    if (source === "cli" || source === "env") continue;
    let parsed: unknown = value;
    try {
      if (now.parseArg) parsed = now.parseArg(value, undefined);
    } catch (error) {
      if (!(error instanceof InvalidArgumentError)) throw error;
      const message = `error: option '${now.flags}' value '${value}' from env '${old}' is invalid. ${error.message}`;
      command.error(message, { exitCode: 2, code: "commander.invalidArgument" });
    }
    command.setOptionValueWithSource(option, parsed, "env");
    const sources = oldSources.get(command) ?? new Map<string, string>();
    oldSources.set(command, sources.set(option, old));
  }
}
