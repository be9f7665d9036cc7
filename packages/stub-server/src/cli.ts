/**
 * The `compute-stub` command line: flags and environment (commander), the data to serve, and what is printed
 * once the stub listens. Invalid flags exit with 2; data or start-up failures with 1.
 */
import { createRequire } from "node:module";
import { loadSpec } from "@compute-api/contract";
import { integerFlag } from "@compute-api/contract/cli";
import { createLogger } from "@compute-api/contract/http";
import { newApiKey } from "@compute-api/server";
import { Command, CommanderError, Option } from "commander";
import { apiKey, faultList, latencyRange, origins, percent, requestRate } from "./cli-flags.js";
import type { FaultOptions } from "./faults.js";
import { builtinFixtures } from "./fixtures/builtin.js";
import { generateFixtures, minGenerateCount } from "./fixtures/generate-fixtures.js";
import { FixtureError, loadFixtures } from "./fixtures/load-fixtures.js";
import { type RunningStub, startServer } from "./server.js";
import type { Fixtures } from "./types.js";

/** Where the command writes. Option environment variables are read from process.env. */
export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

/** The outcome: an exit code, or a listening stub (exit code 0) that the caller shuts down. */
export interface CliResult {
  exitCode: number;
  stub?: RunningStub;
}

const logLevels = ["fatal", "error", "warn", "info", "debug", "trace", "silent"];

/** The package's version, from its package.json (one folder up from src/ and from dist/). */
const { version } = createRequire(import.meta.url)("../package.json") as { version: string };

function program(io: CliIo): Command {
  return new Command("compute-stub")
    .description(
      "A stateful stand-in for the compute service that validates every request and response against the spec.",
    )
    .version(version, "-V, --version", "print the version and exit")
    .addOption(
      new Option("-p, --port <port>", "port to listen on (0: any free port)")
        .env("PORT")
        .default(4010)
        .argParser(integerFlag(0, 65535)),
    )
    .addOption(new Option("--host <host>", "address to listen on").env("HOST").default("127.0.0.1"))
    .addOption(new Option("--data <file>", "serve this fixture file (.json, .yaml, .yml) instead of the built-in data"))
    .addOption(
      new Option("--generate <count>", `serve a generated data set of <count> resources (at least ${minGenerateCount})`)
        .argParser(integerFlag(minGenerateCount, 10_000_000))
        .conflicts("data"),
    )
    .addOption(
      new Option("--seed <seed>", "seed of --generate and of the random faults (--faults, --latency, --drop)")
        .default(1)
        .argParser(integerFlag(0, 2 ** 32 - 1)),
    )
    .addOption(
      new Option("--api-key <key>", "API key of the first user (default: a new key, printed)")
        .env("STUB_API_KEY")
        .argParser(apiKey),
    )
    .addOption(
      new Option("--cors-origin <origins>", "origins allowed by CORS, comma-separated or repeated; * for any (default)")
        .env("STUB_CORS_ORIGINS")
        .argParser(origins),
    )
    .addOption(
      new Option(
        "--compress",
        "compress answers (gzip, deflate, br) as the caller's Accept-Encoding allows, as production backends do",
      ),
    )
    .addOption(
      new Option(
        "--faults <statuses>",
        "answer a share of requests with these statuses, such as 429=2%,500=0.5%,503=1%",
      ).argParser(faultList),
    )
    .addOption(
      new Option("--latency <ms>", "delay every answer by a uniform draw from this range, such as 20-200").argParser(
        latencyRange,
      ),
    )
    .addOption(
      new Option(
        "--drop <share>",
        "destroy the connection of this share of requests before any answer, such as 0.5%",
      ).argParser(percent),
    )
    .addOption(
      new Option(
        "--rate-limit <rate>",
        "requests allowed per API key, such as 20/s; over it: 429 with Retry-After",
      ).argParser(requestRate),
    )
    .addOption(
      new Option("--no-prefer", "ignore the callers' Prefer header (code=…, latency=…), which is honoured by default"),
    )
    .addOption(new Option("--log-level <level>", "log level").choices(logLevels).env("LOG_LEVEL").default("info"))
    .allowExcessArguments(false)
    .exitOverride()
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr })
    .showHelpAfterError("(run compute-stub --help for the options)");
}

interface Flags {
  port: number;
  host: string;
  data?: string;
  generate?: number;
  seed: number;
  apiKey?: string;
  corsOrigin?: string[];
  compress?: boolean;
  faults?: FaultOptions["faults"];
  latency?: { min: number; max: number };
  drop?: number;
  rateLimit?: number;
  prefer: boolean;
  logLevel: string;
}

/** Runs the command: parses flags, loads the data, listens and prints the URL, a key and a curl line. */
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
  let fixtures: Fixtures;
  try {
    fixtures = flags.data
      ? loadFixtures(flags.data, spec)
      : flags.generate
        ? generateFixtures({ count: flags.generate, seed: flags.seed, spec })
        : builtinFixtures();
  } catch (error) {
    if (!(error instanceof FixtureError)) throw error;
    io.stderr(`compute-stub: ${error.message}\n`);
    return { exitCode: 1 };
  }
  const [user] = fixtures.users;
  const key = flags.apiKey ?? newApiKey();
  let stub: RunningStub;
  try {
    stub = await startServer({
      fixtures,
      apiKeys: user ? { [user.id]: key } : {},
      corsOrigins: flags.corsOrigin ?? ["*"],
      compress: flags.compress === true,
      faults: {
        seed: flags.seed,
        prefer: flags.prefer,
        ...(flags.faults ? { faults: flags.faults } : {}),
        ...(flags.latency ? { latencyMs: flags.latency } : {}),
        ...(flags.drop !== undefined ? { drop: flags.drop } : {}),
        ...(flags.rateLimit !== undefined ? { rateLimit: flags.rateLimit } : {}),
      },
      logger: createLogger({ level: flags.logLevel }),
      port: flags.port,
      host: flags.host,
      spec,
    });
  } catch (error) {
    io.stderr(`compute-stub: cannot start: ${(error as Error).message}\n`);
    return { exitCode: 1 };
  }

  const fromEnv = command.getOptionValueSource("apiKey") === "env";
  const shown = flags.apiKey === undefined ? key : fromEnv ? "$STUB_API_KEY" : "<your --api-key>";
  io.stdout(
    [
      `compute-stub listening on ${stub.url} (docs: ${stub.url}/docs)`,
      flags.apiKey === undefined
        ? `API key of user '${user?.id}' (new at each start; set one with --api-key or STUB_API_KEY):\n  ${key}`
        : `API key of user '${user?.id}': the one given by ${fromEnv ? "STUB_API_KEY" : "--api-key"}`,
      "Try it:",
      `  curl -H "Authorization: Bearer ${shown}" "${stub.url}/v1/resources/search?query=train"`,
      "",
    ].join("\n"),
  );
  return { exitCode: 0, stub };
}
