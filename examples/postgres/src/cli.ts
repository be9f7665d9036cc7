/**
 * The `compute-postgres` command line, shaped as compute-stub's: the same flags where they apply (`--port`,
 * `--host`, `--data`, `--generate`, `--seed`, `--api-key`, `--cors-origin`, `--compress`, `--log-level`), plus where
 * the data lives (`--database-url` or DATABASE_URL, `--pglite-dir`). Invalid flags exit with 2; data or start-up
 * failures with 1.
 */
import { loadSpec } from "@compute-api/contract";
import { createLogger } from "@compute-api/contract/http";
import {
  type CliIo,
  type DrainTimes,
  defaultKeyId,
  drainTimesOf,
  FixtureError,
  fixturesOf,
  listeningLines,
  parseServerFlags,
  type ServerFlags,
  serverCommand,
} from "@compute-api/stub-server";
import { type Command, Option } from "commander";
import { type RunningPostgresServer, startPostgresServer } from "./postgres-server.js";
import { type FirstKey, registerFirstKey } from "./start-up-keys.js";

export type { CliIo } from "@compute-api/stub-server";

/** The outcome: an exit code, or a listening server (exit code 0) that the caller shuts down. */
export interface CliResult {
  exitCode: number;
  server?: RunningPostgresServer;
  /** How the server drains on SIGTERM (--shutdown-grace, --shutdown-timeout). */
  shutdown?: DrainTimes;
}

const keyEnv = "COMPUTE_API_KEY";

function program(io: CliIo): Command {
  return serverCommand(
    "compute-postgres",
    "The compute service on PostgreSQL: PGlite embedded (default), or a server through DATABASE_URL.",
    io,
    { keyEnv, corsEnv: "CORS_ORIGINS", dataVerb: "load into an empty database" },
  )
    .addOption(
      new Option("--database-url <url>", "a PostgreSQL server to keep the data in (default: PGlite)").env(
        "DATABASE_URL",
      ),
    )
    .addOption(
      new Option("--pglite-dir <dir>", "keep PGlite's data in this directory (default: in memory)")
        .env("PGLITE_DIR")
        .conflicts("databaseUrl"),
    );
}

interface Flags extends ServerFlags {
  databaseUrl?: string;
  pgliteDir?: string;
}

/** Runs the command: parses flags, prepares the database, listens and prints the URL, a key and a curl line. */
export async function runCli(argv: string[], io: CliIo): Promise<CliResult> {
  const command = program(io);
  const flags = parseServerFlags<Flags>(command, argv);
  if (typeof flags === "number") return { exitCode: flags };

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
      corsOrigins: flags.corsOrigin ?? ["*"],
      compress: flags.compress === true,
      logger: createLogger({ level: flags.logLevel }),
      port: flags.port,
      host: flags.host,
      spec,
    });
  } catch (error) {
    const message = error instanceof FixtureError ? error.message : `cannot start: ${startFailure(error)}`;
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

  const lines = listeningLines(command, {
    name: "compute-postgres",
    url: server.url,
    about: `data: ${server.database.description}`,
    user: firstKey?.user,
    key: firstKey?.key ?? "<your API key>",
    keyEnv,
  });
  io.stdout(firstKey?.outcome === "given" ? lines : withKeyLine(lines, firstKey));
  return { exitCode: 0, server, shutdown: drainTimesOf(flags) };
}

/**
 * The shared lines with this command's key line: its key is not new at each start but only when the database
 * holds none, so that replicas on one database keep each other's key.
 */
function withKeyLine(lines: string, firstKey: FirstKey | undefined): string {
  const setOne = `set one with --api-key or ${keyEnv}`;
  const line = !firstKey
    ? "No user in the data, so no API key"
    : firstKey.outcome === "new"
      ? `API key of user '${firstKey.user}' (new: the database held none; later starts keep it, or ${setOne}):\n  ${firstKey.key}`
      : `API key of user '${firstKey.user}': the one the database holds already stays (key '${defaultKeyId}'; ${setOne})`;
  return lines.replace(/^API key of user .*(\n {2}\S+)?$/m, line);
}

/** What stopped the start, for the operator: the answer a client would get, and the driver's cause behind it. */
function startFailure(error: unknown): string {
  const { message, cause } = error as Error;
  return cause instanceof Error ? `${message} (${cause.message})` : message;
}
