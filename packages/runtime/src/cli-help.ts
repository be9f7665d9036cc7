/**
 * How every command's `--help` reads: defaults written one way (`(default: 4010)`, a default that is an absence
 * described in words), then an Examples section and the exit statuses.
 */
import type { Command, Help, Option } from "commander";

/** The exit statuses every command shares; a command adds what 0 and 1 mean for it. */
export const exitCodes = { ok: 0, failed: 1, usage: 2 } as const;

/** Describes a default that is not a value (`a new key, printed`, `in memory`), shown as `(default: …)`. */
export function defaultText<T extends Option>(option: T, text: string): T {
  option.defaultValueDescription = text;
  return option;
}

/** An option's line in the help: its description, then its choices, default and variable in one parenthesis. */
function optionDescription(option: Option): string {
  const extra: string[] = [];
  if (option.argChoices) extra.push(`one of ${option.argChoices.join(", ")}`);
  const value = option.defaultValue as unknown;
  const shown =
    option.defaultValueDescription ??
    (value === undefined || typeof value === "boolean" ? undefined : Array.isArray(value) ? value.join(",") : value);
  if (shown !== undefined) extra.push(`default: ${String(shown)}`);
  // A flag without a value is given by its variable holding true (or 1, yes, on).
  if (option.envVar) extra.push(`env: ${option.envVar}${!option.required && !option.optional ? "=true" : ""}`);
  return extra.length > 0 ? `${option.description} (${extra.join("; ")})` : option.description;
}

/** What a command's help ends with. */
export interface HelpEpilogue {
  /** Command lines, each shown after `$ `, with a comment after `#` if it says what it does. */
  examples: string[];
  /** What each exit status means for this command. */
  exitStatus: Record<number, string>;
}

/** Writes defaults one way in the command's help, and adds its Examples and Exit status sections. */
export function describeCommand(command: Command, { examples, exitStatus }: HelpEpilogue): Command {
  const help: Partial<Help> = { optionDescription };
  const status = Object.entries(exitStatus).map(([code, meaning]) => `  ${code}  ${meaning}`);
  return command
    .configureHelp(help)
    .addHelpText(
      "after",
      ["", "Examples:", ...examples.map((line) => `  $ ${line}`), "", "Exit status:", ...status].join("\n"),
    );
}
