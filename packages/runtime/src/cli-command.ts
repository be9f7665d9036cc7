/**
 * A command line as every command has it: each flag's variable by the naming rule, old names that still work,
 * values checked once every name is read, usage errors printed one way (`error: …`, the hint to --help, exit
 * status 2), and a help that ends with examples and the exit statuses.
 */
import { Command, type Option } from "commander";
import { booleanValue, envValue, isBoolean, usageError, variableOf } from "./cli-env.js";
import { describeCommand, type HelpEpilogue } from "./cli-help.js";
import { addRenamedFlags, applyRenames, type Renames } from "./cli-renames.js";
import { checkValues } from "./cli-values.js";
import { TracingConfigError, tracingConfig } from "./tracing/config.js";

/** Where a command writes. Option environment variables are read from process.env. */
export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** Whether the output is a terminal. */
  tty?: boolean;
}

/** The process's own standard output and error. */
export const processIo: CliIo = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
};

/** What a command line is made of besides its options. */
export interface CommandLineOptions extends HelpEpilogue {
  /** Old names of flags and variables, still read with a deprecation line. */
  renamed?: Renames;
  /** Whether the command traces: the `OTEL_*` variables are checked with its flags (a bad one is a usage error). */
  traces?: boolean;
}

const settings = new WeakMap<Command, CommandLineOptions>();

/**
 * A commander Command whose every option added gets its variable by the naming rule (`variableOf`), unless it is
 * hidden (an old name) or has one already: set before commander registers the option, which reads it at parsing.
 */
export class CliCommand extends Command {
  override addOption(option: Option): this {
    if (!option.hidden && option.long && option.envVar === undefined) option.env(variableOf(this.name(), option.long));
    return super.addOption(option);
  }
}

/**
 * Finishes a CliCommand whose options are all added: adds the old flags, and makes it write to `io`, refuse extra
 * arguments, print usage errors one way and end its help as every command's.
 */
export function commandLine(command: CliCommand, io: CliIo, options: CommandLineOptions): Command {
  addRenamedFlags(command, options.renamed?.flags ?? {});
  settings.set(command, options);
  command
    .allowExcessArguments(false)
    .exitOverride()
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr })
    .showHelpAfterError(`(run ${command.name()} --help for the options)`);
  return describeCommand(command, options);
}

/** A flag without a value given by its own variable: commander took its presence; this reads its value. */
function readBooleanVariables(command: Command, environment: NodeJS.ProcessEnv): void {
  for (const option of command.options) {
    const raw = option.envVar === undefined ? undefined : environment[option.envVar];
    if (!isBoolean(option) || raw === undefined || booleanValue(raw) === true) continue;
    if (command.getOptionValueSource(option.attributeName()) !== "env") continue;
    command.setOptionValueWithSource(option.attributeName(), envValue(command, option, raw, option.envVar!), "env");
  }
}

/**
 * Parses a command line made by `commandLine` (arguments without node and script) with the environment: its
 * options' values; deprecation lines and the warning of a secret given as a flag go to `warn`. Throws a
 * CommanderError (exit status 0 after --help or --version, 2 for a usage error, which it has printed).
 */
export function parseCommandLine<T extends object>(
  command: Command,
  argv: readonly string[],
  warn: (text: string) => void,
): T {
  const { renamed = {}, traces = false } = settings.get(command) ?? {};
  command.parse(argv, { from: "user" });
  applyRenames(command, warn, renamed);
  readBooleanVariables(command, process.env);
  checkValues(command, warn);
  if (traces) {
    try {
      // Read again where tracing starts (in each of the gateway's workers); checked once here.
      tracingConfig(process.env);
    } catch (error) {
      if (!(error instanceof TracingConfigError)) throw error;
      usageError(command, error.message);
    }
  }
  return command.opts<T>();
}
