/**
 * Old names of flags and variables that still work: each use prints one deprecation line on stderr, and the new
 * name wins when both are given.
 */
import { type Command, Option } from "commander";
import { envValue } from "./cli-env.js";

/**
 * Old names still read, each mapped to the flag it now feeds: variables (`{ UPSTREAM_URL: "--upstream" }`) and
 * flags (`{ "--allowed-origins": "--cors-origins" }`).
 */
export interface Renames {
  env?: Readonly<Record<string, string>>;
  flags?: Readonly<Record<string, string>>;
}

/** The variable that gave each option its value, where it was an old one. */
const oldSources = new WeakMap<Command, Map<string, string>>();

function optionOf(command: Command, long: string): Option {
  const option = command.options.find((o) => o.long === long);
  if (!option) throw new Error(`${command.name()} has no option ${long}`);
  return option;
}

/** Adds each old flag as a hidden option that reads its value as the new one does (`--cors-origin <origins>`). */
export function addRenamedFlags(command: Command, flags: Readonly<Record<string, string>>): void {
  for (const [old, long] of Object.entries(flags)) {
    const now = optionOf(command, long);
    const option = new Option(now.flags.replace(long, old).replace(/^-\w, /, ""), `deprecated: ${long}`).hideHelp();
    if (now.parseArg) option.argParser(now.parseArg);
    command.addOption(option);
  }
}

/** The variable that gave an option its value (its own, or an old name), if a variable did. */
export function envSourceOf(command: Command, option: string): string | undefined {
  const old = oldSources.get(command)?.get(option);
  if (old) return old;
  if (command.getOptionValueSource(option) !== "env") return undefined;
  return command.options.find((o) => o.attributeName() === option)?.envVar;
}

/** Where the value of a flag (`--upstream`) came from, for a message: the flag, or the variable (new or old) that gave it. */
export function sourceOf(command: Command, long: string): string {
  return envSourceOf(command, optionOf(command, long).attributeName()) ?? long;
}

/**
 * After parsing: takes the values of old flags and variables into their options, where the new name gave none,
 * and says once for each old name used that it is deprecated (on `warn`, prefixed with the command's name).
 * A bad value of an old variable is a usage error (exit status 2), as a new one's is.
 */
export function applyRenames(
  command: Command,
  warn: (text: string) => void,
  { flags = {}, env = {} }: Renames,
  environment: NodeJS.ProcessEnv = process.env,
): void {
  const name = command.name();
  for (const [old, long] of Object.entries(flags)) {
    const option = optionOf(command, old).attributeName();
    const value: unknown = command.getOptionValue(option);
    if (value === undefined) continue;
    warn(`${name}: ${old} is deprecated; use ${long}\n`);
    const now = optionOf(command, long).attributeName();
    if (command.getOptionValueSource(now) !== "cli") command.setOptionValueWithSource(now, value, "cli");
  }
  for (const [old, long] of Object.entries(env)) {
    const raw = environment[old];
    if (raw === undefined) continue;
    const now = optionOf(command, long);
    warn(`${name}: ${old} is deprecated; use ${now.envVar ?? long}\n`);
    const attribute = now.attributeName();
    const source = command.getOptionValueSource(attribute);
    if (source === "cli" || source === "env") continue;
    command.setOptionValueWithSource(attribute, envValue(command, now, raw, old), "env");
    const sources = oldSources.get(command) ?? new Map<string, string>();
    oldSources.set(command, sources.set(attribute, old));
  }
}
