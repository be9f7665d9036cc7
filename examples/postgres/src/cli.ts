/**
 * The `compute-postgres` command line, shaped as compute-stub's: the same flags where they apply (`--port`,
 * `--host`, `--data`, `--generate`, `--seed`, `--api-key`, `--cors-origin`, `--compress`, `--log-level`), plus where
 * the data lives (`--database-url` or DATABASE_URL, `--pglite-dir`). Invalid flags exit with 2; data or start-up
 * failures with 1.
 */
import { loadSpec } from "@compute-api/contract";
import { createLogger } from "@compute-api/contract/http";
import { newApiKey } from "@compute-api/server";
import {
  type CliIo,
  type DrainTimes,
  drainTimesOf,
  FixtureError,
  fixturesOf,
  listeningLines,
  parseServerFlags,
  type ServerFlags,
  serverCommand,
} from "@compute-api/stub-server";
import { type Command, Option } from "commander";
import { firstUser, registerApiKey } from "./load-data.js";
import { defaultKeyId, type RunningPostgresServer, startPostgresServer } from "./postgres-server.js";

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

  io.stdout(
    listeningLines(command, {
      name: "compute-postgres",
      url: server.url,
      about: `data: ${server.database.description}`,
      user,
      key,
      keyEnv,
    }),
  );
  return { exitCode: 0, server, shutdown: drainTimesOf(flags) };
}
