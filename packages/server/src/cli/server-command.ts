/**
 * The command line of servers shaped as compute-stub (compute-stub, and examples/postgres's compute-postgres): the
 * flags for where to listen, the data and the key, and their parsing (bad flags exit with 2).
 */
import {
  apiKeyOption,
  CliCommand,
  type CliIo,
  commandLine,
  defaultText,
  formerServerVariables,
  type HelpEpilogue,
  hostOption,
  logLevelOption,
  origins,
  parseCommandLine,
  portOption,
  shutdownFlags,
  unprefixed,
  usageOr,
} from "@compute-api/runtime/cli";
import { type Command, Option } from "commander";

/** The flags every such command has. */
export interface ServerFlags {
  port: number;
  host: string;
  apiKey?: string;
  corsOrigins?: string[];
  compress?: boolean;
  logLevel: string;
  shutdownGrace: number;
  shutdownTimeout: number;
}

/** What differs between the commands: their port, data flags, version, key, own flags and help. */
export interface ServerCommandOptions extends HelpEpilogue {
  /** The default of --port. */
  port: number;
  /** The version --version prints. */
  version: string;
  /** Flags of the data, after --host (`dataOptions`). */
  dataOptions?: Option[];
  /** What --api-key's default is, in words: "a new key, printed". */
  keyDefault: string;
  /** The command's own flags, after the shared ones. */
  ownOptions?: Option[];
  /** Old variables of the command, each to the flag it now feeds (`{ STUB_API_KEY: "--api-key" }`). */
  renamedEnv?: Record<string, string>;
}

/** A command with the shared flags and its own, ready for `parseServerFlags`. */
export function serverCommand(name: string, description: string, io: CliIo, options: ServerCommandOptions): Command {
  const command = new CliCommand(name)
    .description(description)
    .version(options.version, "-V, --version", "print the version and exit")
    .addOption(portOption(options.port))
    .addOption(hostOption());
  for (const option of options.dataOptions ?? []) command.addOption(option);
  command
    .addOption(defaultText(apiKeyOption("API key of the first user"), options.keyDefault))
    .addOption(
      defaultText(
        new Option(
          "--cors-origins <origins>",
          "origins allowed by CORS, comma-separated or repeated; * for any",
        ).argParser(origins),
        "*",
      ),
    )
    .addOption(
      new Option(
        "--compress",
        "compress answers (gzip, deflate, br) as the caller's Accept-Encoding allows, as production backends do",
      ),
    )
    .addOption(logLevelOption());
  for (const option of [...shutdownFlags(), ...(options.ownOptions ?? [])]) command.addOption(option);
  return commandLine(command, io, {
    ...options,
    traces: true,
    renamed: {
      env: { ...formerServerVariables, ...unprefixed("--cors-origins"), ...options.renamedEnv },
      flags: { "--cors-origin": "--cors-origins" },
    },
  });
}

/**
 * The parsed flags, or the exit code when there is nothing to run: 0 after --help or --version, 2 for a bad flag.
 * An old flag or variable used prints its deprecation line on stderr.
 */
export function parseServerFlags<Flags extends ServerFlags>(
  command: Command,
  argv: string[],
  io: CliIo,
): Flags | number {
  return usageOr(() => parseCommandLine<Flags>(command, argv, io.stderr));
}
