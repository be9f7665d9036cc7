/**
 * The `compute-stub` command line: the shared flags and the data flags of @compute-api/server/cli and the stub's
 * faults; the data to serve, and what is printed once the stub listens.
 * Invalid flags exit with 2; data or start-up failures with 1.
 */

import { loadSpec } from "@compute-api/contract";
import { type DataFlags, FixtureError, type Fixtures, fixturesOf, minGenerateCount } from "@compute-api/fixtures";
import { newApiKey } from "@compute-api/rules";
import { createLogger, isLoopback } from "@compute-api/runtime";
import { type CliIo, integerFlag, packageVersion, secretOption, variableOf } from "@compute-api/runtime/cli";
import {
  type DrainTimes,
  dataOptions,
  drainTimesOf,
  listeningLines,
  parseServerFlags,
  type ServerFlags,
  serverCommand,
  startCommandTracing,
} from "@compute-api/server/cli";
import { type Command, Option } from "commander";
import { adminPrefix } from "./admin.js";
import { faultList, latencyRange, percent, requestRate, scenarioList } from "./cli-flags.js";
import { type ForwardFlags, forwardFlagsProblem, forwardOptions } from "./cli-forward.js";
import { maxRetryAfterSeconds, type Scenarios } from "./fault-scenarios.js";
import type { FaultOptions } from "./faults.js";
import { type RunningStub, startServer } from "./server.js";

export type { CliIo } from "@compute-api/runtime/cli";

/** The outcome: an exit code, or a listening stub (exit code 0) that the caller shuts down. */
export interface CliResult {
  exitCode: number;
  stub?: RunningStub;
  /** How the stub drains on SIGTERM (--shutdown-grace, --shutdown-timeout). */
  shutdown?: DrainTimes;
}

function program(io: CliIo): Command {
  return serverCommand(
    "compute-stub",
    "A stateful stand-in for the compute service that validates every request and response against the spec.",
    io,
    {
      port: 4010,
      version: packageVersion(import.meta.url),
      dataOptions: dataOptions("serve", minGenerateCount, "of the random faults (--faults, --latency, --drop)"),
      keyDefault: "a new key at each start, printed",
      ownOptions: [
        new Option(
          "--faults <statuses>",
          "answer a share of requests with these statuses, such as 429=2%,500=0.5%,503=1%",
        ).argParser(faultList),
        new Option("--latency <ms>", "delay every answer by a uniform draw from this range, such as 20-200").argParser(
          latencyRange,
        ),
        new Option(
          "--drop <share>",
          "destroy the connection of this share of requests before any answer, such as 0.5%",
        ).argParser(percent),
        new Option(
          "--rate-limit <rate>",
          "requests allowed per API key, such as 20/s; over it: 429 with Retry-After",
        ).argParser(requestRate),
        new Option(
          "--scenario <steps>",
          "answer an operation's next calls in steps, such as searchResources=503x2,200 (503 twice, then its own answer); repeatable",
        ).argParser(scenarioList),
        new Option(
          "--retry-after <seconds>",
          "the Retry-After of injected 429 and 503 answers (--faults, --scenario, Prefer: code=); 0 lets retries run at once",
        )
          .default(1)
          .argParser(integerFlag(0, maxRetryAfterSeconds)),
        new Option(
          "--no-prefer",
          "ignore the callers' Prefer header (code=…, latency=…), which is honoured by default",
        ),
        secretOption(
          "--admin-token <token>",
          `token every request to the admin API (${adminPrefix}/) must send as Authorization: Bearer <token>; without one, a --host beyond loopback has no admin API`,
          { bearer: true },
        ),
        new Option("--no-admin", `turn the admin API (${adminPrefix}/: reset, snapshot, journal, faults) off`),
        new Option("--journal-size <n>", `requests the journal of ${adminPrefix}/requests keeps; 0 keeps none`)
          .default(1000)
          .argParser(integerFlag(0, 1_000_000)),
        ...forwardOptions(),
      ],
      renamedEnv: {
        STUB_API_KEY: "--api-key",
        STUB_CORS_ORIGINS: "--cors-origins",
        COMPUTE_ADMIN_TOKEN: "--admin-token",
      },
      examples: [
        "compute-stub                                 # the built-in data on http://127.0.0.1:4010, a new key printed",
        'COMPUTE_API_KEY="$KEY" compute-stub -p 4020 --compress',
        "compute-stub --generate 100000 --seed 7",
        "compute-stub --faults 429=2%,503=1% --latency 20-200 --drop 0.5% --rate-limit 20/s",
        "compute-stub --scenario searchResources=503x2,200 --retry-after 0   # 503 twice, then the search's answer",
        'COMPUTE_STUB_ADMIN_TOKEN="$ADMIN_TOKEN" compute-stub --host 0.0.0.0   # beyond this machine, the admin API only with a token',
        "compute-stub --forward https://compute.internal --record mine.yaml   # what the data does not hold: the real service",
      ],
      exitStatus: {
        0: "stopped by SIGINT or SIGTERM after draining; or --help, --version",
        1: "the data could not be read or served, or the stub could not start (the port is taken)",
        2: "a flag or variable is invalid",
      },
    },
  );
}

/** The variable of --admin-token. */
export const adminTokenEnv = variableOf("compute-stub", "--admin-token");

interface Flags extends ServerFlags, DataFlags, ForwardFlags {
  faults?: FaultOptions["faults"];
  latency?: { min: number; max: number };
  drop?: number;
  rateLimit?: number;
  scenario?: Scenarios;
  retryAfter: number;
  prefer: boolean;
  adminToken?: string;
  admin: boolean;
  journalSize: number;
}

/** Runs the command: parses flags, loads the data, listens and prints the URL, a key and a curl line. */
export async function runCli(argv: string[], io: CliIo): Promise<CliResult> {
  const command = program(io);
  const flags = parseServerFlags<Flags>(command, argv, io);
  if (typeof flags === "number") return { exitCode: flags };
  await startCommandTracing(command, flags);

  // The admin API can replace the whole state and read every request: beyond this machine, only with a token. Without
  // one it is off there (a container's HOST=0.0.0.0 still starts), and a line says so.
  const admin = flags.admin && (flags.adminToken !== undefined || isLoopback(flags.host));
  if (flags.admin && !admin)
    io.stderr(
      `compute-stub: the admin API (${adminPrefix}/) is off: --host ${flags.host} listens beyond this machine, and it can reset the data and read every request; give it a token (--admin-token or ${adminTokenEnv}) to turn it on, or --no-admin to say so\n`,
    );
  const forwardProblem = forwardFlagsProblem(flags);
  if (forwardProblem) {
    io.stderr(`compute-stub: ${forwardProblem}\n`);
    return { exitCode: 2 };
  }
  const spec = loadSpec();
  let fixtures: Fixtures;
  try {
    fixtures = fixturesOf(flags, spec);
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
      // Made or read (and checked) here for this stub alone: not checked again, nor copied.
      adoptFixtures: true,
      // A reset makes the data again: reads --data's file again (an edited file is picked up), generates again.
      baseline: () => fixturesOf(flags, spec),
      admin: admin ? { token: flags.adminToken } : false,
      journalSize: flags.journalSize,
      apiKeys: user ? { [user.id]: key } : {},
      corsOrigins: flags.corsOrigins ?? ["*"],
      compress: flags.compress === true,
      faults: {
        seed: flags.seed,
        prefer: flags.prefer,
        ...(flags.faults ? { faults: flags.faults } : {}),
        ...(flags.latency ? { latencyMs: flags.latency } : {}),
        ...(flags.drop !== undefined ? { drop: flags.drop } : {}),
        ...(flags.rateLimit !== undefined ? { rateLimit: flags.rateLimit } : {}),
        ...(flags.scenario ? { scenarios: flags.scenario } : {}),
        retryAfterSeconds: flags.retryAfter,
      },
      ...(flags.forward === undefined
        ? {}
        : { forward: { url: flags.forward, record: flags.record, recordKeys: flags.recordKeys === true } }),
      logger: createLogger({ level: flags.logLevel }),
      port: flags.port,
      host: flags.host,
      spec,
    });
  } catch (error) {
    // A recording refused (a file that cannot be written, another writer) is a usage error, as compute-gateway's.
    const refused = (error as Error).name === "RecordingRefused";
    io.stderr(`compute-stub: ${refused ? "" : "cannot start: "}${(error as Error).message}\n`);
    return { exitCode: refused ? 2 : 1 };
  }

  io.stdout(
    listeningLines(command, {
      name: "compute-stub",
      url: stub.url,
      about: `docs: ${stub.url}/docs${admin ? `, admin: ${stub.url}${adminPrefix}/` : ""}`,
      user: user?.id,
      key: flags.apiKey === undefined ? { outcome: "new", key, lasts: "new at each start" } : { outcome: "given" },
    }),
  );
  return { exitCode: 0, stub, shutdown: drainTimesOf(flags) };
}
