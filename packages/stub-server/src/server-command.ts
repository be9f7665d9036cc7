/**
 * What the commands of servers shaped as compute-stub share (compute-stub, and examples/postgres's
 * compute-postgres): the flags for where to listen, the data and the key, their parsing (bad flags exit with 2),
 * the data they name, what is printed once the server listens, and running until SIGINT or SIGTERM.
 */
import type { OpenApiDocument } from "@compute-api/contract";
import { dropOutputWithoutReader, integerFlag, shutdownFlags } from "@compute-api/contract/cli";
import { flushStdoutLog, onShutdownSignal } from "@compute-api/contract/http";
import { Command, CommanderError, Option } from "commander";
import { apiKey, origins } from "./cli-flags.js";
import { builtinFixtures } from "./fixtures/builtin.js";
import { generateFixtures, minGenerateCount } from "./fixtures/generate-fixtures.js";
import { loadFixtures } from "./fixtures/load-fixtures.js";
import type { Fixtures } from "./types.js";

/** Where a command writes. Option environment variables are read from process.env. */
export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

/** The flags every such command has. */
export interface ServerFlags {
  port: number;
  host: string;
  data?: string;
  generate?: number;
  seed: number;
  apiKey?: string;
  corsOrigin?: string[];
  compress?: boolean;
  logLevel: string;
  shutdownGrace: number;
  shutdownTimeout: number;
}

/** How a command names its flags' environment variables and describes its data. */
export interface ServerCommandOptions {
  /** The environment variable of --api-key, such as `STUB_API_KEY`. */
  keyEnv: string;
  /** The environment variable of --cors-origin. */
  corsEnv: string;
  /** What the command does with --data's file and --generate's set: "serve" or "load into an empty database". */
  dataVerb: string;
  /** What --seed also seeds, if anything. */
  seedAlso?: string;
}

const logLevels = ["fatal", "error", "warn", "info", "debug", "trace", "silent"];

/** Adds the shared flags to a command, ready for `parseServerFlags`. */
export function serverCommand(
  name: string,
  description: string,
  io: CliIo,
  { keyEnv, corsEnv, dataVerb, seedAlso }: ServerCommandOptions,
): Command {
  const [shutdownGrace, shutdownTimeout] = shutdownFlags() as [Option, Option];
  return new Command(name)
    .description(description)
    .addOption(
      new Option("-p, --port <port>", "port to listen on (0: any free port)")
        .env("PORT")
        .default(4010)
        .argParser(integerFlag(0, 65535)),
    )
    .addOption(new Option("--host <host>", "address to listen on").env("HOST").default("127.0.0.1"))
    .addOption(
      new Option("--data <file>", `${dataVerb} this fixture file (.json, .yaml, .yml) instead of the built-in data`),
    )
    .addOption(
      new Option(
        "--generate <count>",
        `${dataVerb} a generated data set of <count> resources (at least ${minGenerateCount})`,
      )
        .argParser(integerFlag(minGenerateCount, 10_000_000))
        .conflicts("data"),
    )
    .addOption(
      new Option("--seed <seed>", `seed of --generate${seedAlso ? ` and ${seedAlso}` : ""}`)
        .default(1)
        .argParser(integerFlag(0, 2 ** 32 - 1)),
    )
    .addOption(
      new Option("--api-key <key>", "API key of the first user (default: a new key, printed)")
        .env(keyEnv)
        .argParser(apiKey),
    )
    .addOption(
      new Option("--cors-origin <origins>", "origins allowed by CORS, comma-separated or repeated; * for any (default)")
        .env(corsEnv)
        .argParser(origins),
    )
    .addOption(
      new Option(
        "--compress",
        "compress answers (gzip, deflate, br) as the caller's Accept-Encoding allows, as production backends do",
      ),
    )
    .addOption(new Option("--log-level <level>", "log level").choices(logLevels).env("LOG_LEVEL").default("info"))
    .addOption(shutdownGrace)
    .addOption(shutdownTimeout)
    .allowExcessArguments(false)
    .exitOverride()
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr })
    .showHelpAfterError(`(run ${name} --help for the options)`);
}

/** The parsed flags, or the exit code when there is nothing to run: 0 after --help or --version, 2 for a bad flag. */
export function parseServerFlags<Flags extends ServerFlags>(command: Command, argv: string[]): Flags | number {
  try {
    return command.parse(argv, { from: "user" }).opts<Flags>();
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 2;
    throw error;
  }
}

/** The data the flags name: --data's file (checked; a FixtureError names each problem), --generate's set, or the built-in data. */
export function fixturesOf(flags: ServerFlags, spec: OpenApiDocument): Fixtures {
  if (flags.data) return loadFixtures(flags.data, spec);
  if (flags.generate) return generateFixtures({ count: flags.generate, seed: flags.seed, spec });
  return builtinFixtures();
}

/** What a command prints once it listens: where, which user the key is for (the key itself only when it made it), and a curl line. */
export function listeningLines(
  command: Command,
  {
    name,
    url,
    about,
    user,
    key,
    keyEnv,
  }: { name: string; url: string; about: string; user: string | undefined; key: string; keyEnv: string },
): string {
  const given = command.getOptionValue("apiKey") !== undefined;
  const fromEnv = command.getOptionValueSource("apiKey") === "env";
  const shown = !given ? key : fromEnv ? `$${keyEnv}` : "<your --api-key>";
  return [
    `${name} listening on ${url} (${about})`,
    !given
      ? `API key of user '${user}' (new at each start; set one with --api-key or ${keyEnv}):\n  ${key}`
      : `API key of user '${user}': the one given by ${fromEnv ? keyEnv : "--api-key"}`,
    "Try it:",
    `  curl -H "Authorization: Bearer ${shown}" "${url}/v1/resources/search?query=train"`,
    "",
  ].join("\n");
}

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

/**
 * Runs a command's result until SIGINT or SIGTERM: exits with its code when nothing listens; else, on the first
 * signal, drains as --shutdown-grace and --shutdown-timeout say (SIGINT without the grace) and exits 0; a second
 * signal does not cut it short.
 */
export function runUntilSignal(
  name: string,
  running: DrainingServer | undefined,
  exitCode: number,
  shutdown: DrainTimes = drainTimesOf({ shutdownGrace: 0, shutdownTimeout: 0 }),
): void {
  if (!running) process.exit(exitCode);
  dropOutputWithoutReader();
  onShutdownSignal((signal) => {
    process.stdout.write(`${name}: ${signal}, draining (a second signal does not cut it short)\n`);
    // Ctrl-C is a person at a terminal, not a load balancer: idle connections (a browser's) are closed at once.
    const times = signal === "SIGINT" ? { ...shutdown, graceMs: 0 } : shutdown;
    void running.drain(times).then(async () => {
      process.stdout.write(`${name}: stopped, no connection left\n`);
      await flushStdoutLog();
      process.exit(0);
    });
  });
}
