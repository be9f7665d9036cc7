/**
 * The command line of servers shaped as compute-stub (compute-stub, and examples/postgres's compute-postgres): the
 * flags for where to listen, the data and the key, and their parsing (bad flags exit with 2).
 */
import {
  applyRenames,
  type CliIo,
  defaultText,
  describeCommand,
  type HelpEpilogue,
  logLevelOption,
  origins,
  portOption,
  type RenamedEnv,
  renamedFlag,
  shutdownFlags,
  usageOr,
} from "@compute-api/runtime/cli";
import { Command, InvalidArgumentError, Option } from "commander";

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

/** What differs between the commands: their port, data flags, version, key and help. */
export interface ServerCommandOptions extends HelpEpilogue {
  /** The default of --port. */
  port: number;
  /** The version --version prints. */
  version: string;
  /** Flags of the data, after --host (`dataOptions`). */
  dataOptions?: Option[];
  /** What --api-key's default is, in words: "a new key, printed". */
  keyDefault: string;
  /** Old variables still read, each with a deprecation line (`STUB_API_KEY` for `apiKey`). */
  renamedEnv?: RenamedEnv[];
}

/** The variable of --api-key, the same on every command that takes a key. */
export const apiKeyEnv = "COMPUTE_API_KEY";

/** An API key that can be sent as `Authorization: Bearer <key>`. */
export const apiKey = (value: string): string => {
  // The form the contract accepts in `Authorization: Bearer <key>`; any other key could never be sent.
  if (!/^[A-Za-z0-9._~+/=-]+$/.test(value))
    throw new InvalidArgumentError("may hold only letters, digits and . _ ~ + / = -.");
  return value;
};

const renamed = new WeakMap<Command, RenamedEnv[]>();

/** A command with the shared flags, ready for `parseServerFlags`. */
export function serverCommand(name: string, description: string, io: CliIo, options: ServerCommandOptions): Command {
  const [shutdownGrace, shutdownTimeout] = shutdownFlags() as [Option, Option];
  const cors = defaultText(
    new Option("--cors-origins <origins>", "origins allowed by CORS, comma-separated or repeated; * for any")
      .env("CORS_ORIGINS")
      .argParser(origins),
    "*",
  );
  const command = new Command(name)
    .description(description)
    .version(options.version, "-V, --version", "print the version and exit")
    .addOption(portOption(options.port))
    .addOption(new Option("--host <host>", "address to listen on").env("HOST").default("127.0.0.1"));
  for (const option of options.dataOptions ?? []) command.addOption(option);
  command
    .addOption(
      defaultText(
        new Option("--api-key <key>", "API key of the first user").env(apiKeyEnv).argParser(apiKey),
        options.keyDefault,
      ),
    )
    .addOption(cors)
    .addOption(renamedFlag("--cors-origin <origins>", cors))
    .addOption(
      new Option(
        "--compress",
        "compress answers (gzip, deflate, br) as the caller's Accept-Encoding allows, as production backends do",
      ),
    )
    .addOption(logLevelOption())
    .addOption(shutdownGrace)
    .addOption(shutdownTimeout)
    .allowExcessArguments(false)
    .exitOverride()
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr })
    .showHelpAfterError(`(run ${name} --help for the options)`);
  renamed.set(command, options.renamedEnv ?? []);
  return describeCommand(command, options);
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
  return usageOr(() => {
    command.parse(argv, { from: "user" });
    applyRenames(command, io.stderr, {
      flags: [{ flag: "corsOrigin", option: "corsOrigins" }],
      env: renamed.get(command) ?? [],
    });
    return command.opts<Flags>();
  });
}
