/**
 * The `compute-postgres` command line, shaped as compute-stub's: the shared flags and the data flags of
 * @compute-api/server/cli, plus where the data lives (`--database-url`, `--pglite-dir`). Invalid flags and a
 * malformed database URL exit with 2; data or start-up failures with 1.
 */
import { loadSpec } from "@compute-api/contract";
import { type DataFlags, defaultKeyId, FixtureError, fixturesOf, minGenerateCount } from "@compute-api/fixtures";
import { createLogger } from "@compute-api/runtime";
import { type CliIo, defaultText, packageVersion, sourceOf, unprefixed, urlOption } from "@compute-api/runtime/cli";
import {
  type DrainTimes,
  dataOptions,
  drainTimesOf,
  listeningLines,
  parseServerFlags,
  type ServerFlags,
  type StartKey,
  serverCommand,
  startCommandTracing,
} from "@compute-api/server/cli";
import { type Command, Option } from "commander";
import { isUnavailable } from "./database/database-errors.js";
import { PgliteDirInUse } from "./database/pglite-lock.js";
import { defaultPort, type RunningPostgresServer, startPostgresServer } from "./postgres-server.js";
import { type FirstKey, registerFirstKey } from "./start-up-keys.js";

export type { CliIo } from "@compute-api/runtime/cli";

/** The outcome: an exit code, or a listening server (exit code 0) that the caller shuts down. */
export interface CliResult {
  exitCode: number;
  server?: RunningPostgresServer;
  /** How the server drains on SIGTERM (--shutdown-grace, --shutdown-timeout). */
  shutdown?: DrainTimes;
}

/** What --database-url takes. */
const postgresUrl = { schemes: ["postgres", "postgresql"], example: "postgres://me@localhost:5432/compute" };

function program(io: CliIo): Command {
  return serverCommand(
    "compute-postgres",
    "The compute service on PostgreSQL: PGlite embedded (default), or a server through --database-url.",
    io,
    {
      port: defaultPort,
      version: packageVersion(import.meta.url),
      dataOptions: dataOptions("load into an empty database", minGenerateCount),
      keyDefault: "a new key, printed, only when the database holds none",
      ownOptions: [
        defaultText(
          urlOption("--database-url <url>", "a PostgreSQL server to keep the data in", postgresUrl),
          "PGlite",
        ),
        defaultText(new Option("--pglite-dir <dir>", "keep PGlite's data in this directory"), "in memory").conflicts(
          "databaseUrl",
        ),
      ],
      renamedEnv: unprefixed("--database-url", "--pglite-dir"),
      examples: [
        "compute-postgres                             # PGlite in memory (gone at exit), the built-in data, on http://127.0.0.1:4011",
        "compute-postgres --pglite-dir ./data         # PGlite on disk: the data outlives a restart",
        'COMPUTE_POSTGRES_DATABASE_URL=postgres://me@localhost:5432/compute COMPUTE_API_KEY="$KEY" compute-postgres -p 8081',
      ],
      exitStatus: {
        0: "stopped by SIGINT or SIGTERM after draining; or --help, --version",
        1: "the start failed: the port is taken, the database cannot be reached or is in use, the data is bad",
        2: "a flag or variable is invalid, --database-url included",
      },
    },
  );
}

interface Flags extends ServerFlags, DataFlags {
  databaseUrl?: string;
  pgliteDir?: string;
}

/** Runs the command: parses flags, prepares the database, listens and prints the URL, a key and a curl line. */
export async function runCli(argv: string[], io: CliIo): Promise<CliResult> {
  const command = program(io);
  const flags = parseServerFlags<Flags>(command, argv, io);
  if (typeof flags === "number") return { exitCode: flags };
  await startCommandTracing(command, flags);
  const urlSource = sourceOf(command, "--database-url");

  const spec = loadSpec();
  // Read only when the database is empty: a later start keeps its data and never generates or reads a file.
  const fixtures = () => fixturesOf(flags, spec);
  let server: RunningPostgresServer;
  let firstKey: FirstKey | undefined;
  try {
    server = await startPostgresServer({
      ...(flags.databaseUrl ? { databaseUrl: flags.databaseUrl } : {}),
      ...(flags.pgliteDir ? { pgliteDir: flags.pgliteDir } : {}),
      fixtures,
      corsOrigins: flags.corsOrigins ?? ["*"],
      compress: flags.compress === true,
      logger: createLogger({ level: flags.logLevel }),
      port: flags.port,
      host: flags.host,
      spec,
    });
  } catch (error) {
    const message =
      error instanceof FixtureError || error instanceof PgliteDirInUse
        ? error.message
        : flags.databaseUrl && isUnavailable((error as Error).cause ?? error)
          ? `cannot reach the PostgreSQL server of ${urlSource} (${hidePassword(flags.databaseUrl)}): ${causeOf(error)}`
          : `cannot start: ${startFailure(error)}`;
    io.stderr(`compute-postgres: ${message}\n`);
    return { exitCode: 1 };
  }
  try {
    firstKey = await registerFirstKey(server.database, flags.apiKey);
  } catch (error) {
    await server.close();
    io.stderr(`compute-postgres: cannot start: ${startFailure(error)}\n`);
    return { exitCode: 1 };
  }

  io.stdout(
    listeningLines(command, {
      name: "compute-postgres",
      url: server.url,
      about: `data: ${server.database.description}`,
      user: firstKey?.user,
      key: startKey(firstKey, flags.databaseUrl === undefined && flags.pgliteDir === undefined),
    }),
  );
  return { exitCode: 0, server, shutdown: drainTimesOf(flags) };
}

/**
 * This command's key at start: not new at each start as the stub's, but only when the database holds none, so
 * that replicas on one database keep each other's key. In memory, nothing outlives the process: the key neither.
 */
function startKey(firstKey: FirstKey | undefined, inMemory: boolean): StartKey {
  if (firstKey?.outcome === "new" && inMemory)
    return {
      outcome: "new",
      key: firstKey.key,
      lasts: "new at each start: the data is in memory and gone at exit; --pglite-dir or --database-url keeps it",
    };
  if (firstKey?.outcome === "new")
    return { outcome: "new", key: firstKey.key, lasts: "new: the database held none; later starts keep it" };
  if (firstKey?.outcome === "kept")
    return { outcome: "kept", stays: "the one the database holds already stays", keyId: defaultKeyId };
  return { outcome: "given" };
}

/** The URL to show: its password, if any, replaced by `***`. */
function hidePassword(value: string): string {
  const url = new URL(value);
  if (url.password) url.password = "***";
  return url.href;
}

/** The driver's own words behind an error the database layer mapped. */
function causeOf(error: unknown): string {
  const { message, cause } = error as Error;
  if (cause instanceof AggregateError) return cause.errors.map((e: Error) => e.message).join("; ");
  return cause instanceof Error ? cause.message : message;
}

/** What stopped the start, for the operator: the answer a client would get, and the driver's cause behind it. */
function startFailure(error: unknown): string {
  const { message, cause } = error as Error;
  return cause instanceof Error ? `${message} (${cause.message})` : message;
}
