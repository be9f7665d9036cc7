/**
 * The `compute-postgres` command line, shaped as compute-stub's: the same flags where they apply (`--port`,
 * `--host`, `--data`, `--generate`, `--seed`, `--api-key`, `--cors-origin`, `--compress`, `--log-level`), plus where
 * the data lives (`--database-url` or DATABASE_URL, `--pglite-dir`). Invalid flags exit with 2; data or start-up
 * failures with 1.
 */
import { loadSpec } from "@compute-api/contract";
import { integerFlag } from "@compute-api/contract/cli";
import { createLogger, parseOrigins } from "@compute-api/contract/http";
import { newApiKey } from "@compute-api/server";
import { builtinFixtures, FixtureError, type Fixtures, generateFixtures, loadFixtures } from "@compute-api/stub-server";
import { Command, CommanderError, InvalidArgumentError, Option } from "commander";
import { firstUser, registerApiKey } from "./load-data.js";
import { defaultKeyId, type RunningPostgresServer, startPostgresServer } from "./postgres-server.js";

/** Where the command writes. Option environment variables are read from process.env. */
export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

/** The outcome: an exit code, or a listening server (exit code 0) that the caller shuts down. */
export interface CliResult {
  exitCode: number;
  server?: RunningPostgresServer;
}

const logLevels = ["fatal", "error", "warn", "info", "debug", "trace", "silent"];
/** The stub generator's smallest data set. */
const minGenerateCount = 10;

/** An API key that can be sent as `Authorization: Bearer <key>` (the form the contract accepts). */
const apiKey = (value: string): string => {
  if (!/^[A-Za-z0-9._~+/=-]+$/.test(value))
    throw new InvalidArgumentError("may hold only letters, digits and . _ ~ + / = -.");
  return value;
};

const origins = (value: string, previous: string[] | undefined): string[] => {
  try {
    return parseOrigins(value, previous);
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message);
  }
};

function program(io: CliIo): Command {
  return new Command("compute-postgres")
    .description("The compute service on PostgreSQL: PGlite embedded (default), or a server through DATABASE_URL.")
    .addOption(
      new Option("-p, --port <port>", "port to listen on (0: any free port)")
        .env("PORT")
        .default(4010)
        .argParser(integerFlag(0, 65535)),
    )
    .addOption(new Option("--host <host>", "address to listen on").env("HOST").default("127.0.0.1"))
    .addOption(
      new Option("--database-url <url>", "a PostgreSQL server to keep the data in (default: PGlite)").env(
        "DATABASE_URL",
      ),
    )
    .addOption(
      new Option("--pglite-dir <dir>", "keep PGlite's data in this directory (default: in memory)")
        .env("PGLITE_DIR")
        .conflicts("databaseUrl"),
    )
    .addOption(
      new Option(
        "--data <file>",
        "load this fixture file (.json, .yaml, .yml) into an empty database (default: built-in data)",
      ),
    )
    .addOption(
      new Option("--generate <count>", `load a generated data set of <count> resources (at least ${minGenerateCount})`)
        .argParser(integerFlag(minGenerateCount, 10_000_000))
        .conflicts("data"),
    )
    .addOption(new Option("--seed <seed>", "seed of --generate").default(1).argParser(integerFlag(0, 2 ** 32 - 1)))
    .addOption(
      new Option("--api-key <key>", "API key of the first user (default: a new key, printed)")
        .env("COMPUTE_API_KEY")
        .argParser(apiKey),
    )
    .addOption(
      new Option("--cors-origin <origins>", "origins allowed by CORS, comma-separated or repeated; * for any (default)")
        .env("CORS_ORIGINS")
        .argParser(origins),
    )
    .addOption(new Option("--compress", "compress answers (gzip, deflate, br) as the caller's Accept-Encoding allows"))
    .addOption(new Option("--log-level <level>", "log level").choices(logLevels).env("LOG_LEVEL").default("info"))
    .allowExcessArguments(false)
    .exitOverride()
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr })
    .showHelpAfterError("(run compute-postgres --help for the options)");
}

interface Flags {
  port: number;
  host: string;
  databaseUrl?: string;
  pgliteDir?: string;
  data?: string;
  generate?: number;
  seed: number;
  apiKey?: string;
  corsOrigin?: string[];
  compress?: boolean;
  logLevel: string;
}

/** Runs the command: parses flags, prepares the database, listens and prints the URL, a key and a curl line. */
export async function runCli(argv: string[], io: CliIo): Promise<CliResult> {
  const command = program(io);
  let flags: Flags;
  try {
    flags = command.parse(argv, { from: "user" }).opts<Flags>();
  } catch (error) {
    if (error instanceof CommanderError) return { exitCode: error.exitCode === 0 ? 0 : 2 };
    throw error;
  }

  const spec = loadSpec();
  // Read only when the database is empty: a later start keeps its data and never generates or reads a file.
  const fixtures = (): Fixtures =>
    flags.data
      ? loadFixtures(flags.data, spec)
      : flags.generate
        ? generateFixtures({ count: flags.generate, seed: flags.seed, spec })
        : builtinFixtures();
  let server: RunningPostgresServer;
  let user: string | undefined;
  const key = flags.apiKey ?? newApiKey();
  try {
    server = await startPostgresServer({
      ...(flags.databaseUrl ? { databaseUrl: flags.databaseUrl } : {}),
      ...(flags.pgliteDir ? { pgliteDir: flags.pgliteDir } : {}),
      fixtures,
      corsOrigins: flags.corsOrigin ?? ["*"],
      compress: flags.compress === true,
      logger: createLogger({ level: flags.logLevel }),
      port: flags.port,
      host: flags.host,
      spec,
    });
  } catch (error) {
    const message = error instanceof FixtureError ? error.message : `cannot start: ${(error as Error).message}`;
    io.stderr(`compute-postgres: ${message}\n`);
    return { exitCode: 1 };
  }
  try {
    user = await firstUser(server.database);
    if (user) await registerApiKey(server.database, user, defaultKeyId, key);
  } catch (error) {
    await server.close();
    io.stderr(`compute-postgres: cannot start: ${(error as Error).message}\n`);
    return { exitCode: 1 };
  }

  const fromEnv = command.getOptionValueSource("apiKey") === "env";
  const shown = flags.apiKey === undefined ? key : fromEnv ? "$COMPUTE_API_KEY" : "<your --api-key>";
  io.stdout(
    [
      `compute-postgres listening on ${server.url} (data: ${server.database.description})`,
      flags.apiKey === undefined
        ? `API key of user '${user}' (new at each start; set one with --api-key or COMPUTE_API_KEY):\n  ${key}`
        : `API key of user '${user}': the one given by ${fromEnv ? "COMPUTE_API_KEY" : "--api-key"}`,
      "Try it:",
      `  curl -H "Authorization: Bearer ${shown}" "${server.url}/v1/resources/search?query=train"`,
      "",
    ].join("\n"),
  );
  return { exitCode: 0, server };
}
