/** The command line of compute-gateway: flags, each also read from the environment, checked before start-up. */
import { availableParallelism } from "node:os";
import type { ResponseValidationMode } from "@compute-api/contract";
import {
  CliCommand,
  type CliIo,
  commandLine,
  defaultText,
  formerServerVariables,
  hostOption,
  integerFlag,
  logLevelOption,
  origins,
  packageVersion,
  parseCommandLine as parseFlags,
  portOption,
  processIo,
  required,
  serviceUrlOption,
  shutdownFlags,
  unprefixed,
  usageError,
} from "@compute-api/runtime/cli";
import { type Command, Option } from "commander";
import { defaults } from "./options.js";
import { recordFileProblem } from "./record.js";

/** What the command line decides. */
export interface CliConfig {
  upstream: URL;
  port: number;
  host: string;
  responseValidation: ResponseValidationMode;
  timeoutMs: number;
  maxBodyBytes?: number;
  maxResponseBytes: number;
  upstreamKeepAliveTimeoutMs: number;
  requestTimeoutMs: number;
  shutdownGraceMs: number;
  shutdownTimeoutMs: number;
  workers: number;
  passthroughUnknown: boolean;
  corsOrigins?: string[];
  logLevel: string;
  /** --record: the fixture file the backend's answers are recorded into. */
  record?: string;
  /** --record-keys: the callers' keys recorded as users, as SHA-256 only. */
  recordKeys?: boolean;
}

/** How the gateway's help ends: examples and what each exit status means. */
const epilogue = {
  examples: [
    "compute-gateway --upstream http://127.0.0.1:4010      # in front of compute-stub, on http://127.0.0.1:8080",
    "compute-gateway --upstream https://compute.internal --host 0.0.0.0 -p 8080 --workers auto",
    "COMPUTE_GATEWAY_UPSTREAM=http://127.0.0.1:4011 compute-gateway --response-validation report",
    "compute-gateway --upstream https://compute.internal --record my-account.yaml   # then: compute-stub --data my-account.yaml",
    "OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4318 compute-gateway --upstream http://127.0.0.1:4010   # traces (README: Tracing)",
  ],
  exitStatus: {
    0: "stopped by SIGINT or SIGTERM after draining; or --help, --version",
    1: "it could not start (the port is taken, the spec does not compile), or the recording's last write failed",
    2: "a flag or variable is invalid, --upstream is missing, or the --record file cannot be written or has a writer",
  },
};

/** The commander program, writing to `io`; exits through CommanderError instead of process.exit. */
export function createProgram(io: CliIo = processIo): Command {
  const [shutdownGrace, shutdownTimeout] = shutdownFlags() as [Option, Option];
  const program = new CliCommand("compute-gateway")
    .description("A reverse proxy that holds a compute-api backend to the OpenAPI spec, requests and responses.")
    .version(packageVersion(import.meta.url), "-V, --version", "print the version and exit")
    .addOption(
      required(
        serviceUrlOption("--upstream <url>", "base URL of the backend, without /v1; a path prefix is kept"),
        "the backend's URL, such as http://127.0.0.1:4010",
      ),
    )
    .addOption(portOption(8080))
    .addOption(hostOption())
    .addOption(
      new Option(
        "--response-validation <mode>",
        "enforce: non-conforming responses become 502; report: pass, flagged and logged; off",
      )
        .choices(["enforce", "report", "off"])
        .default(defaults.responseValidation),
    )
    .addOption(
      new Option("--timeout-ms <n>", "time the backend has for its whole response")
        .default(defaults.timeoutMs)
        .argParser(integerFlag(1)),
    )
    .addOption(
      defaultText(
        new Option("--max-body-bytes <n>", "largest request body").argParser(integerFlag(1)),
        `${defaults.maxBodyBytes} (the spec's x-max-request-body-bytes)`,
      ),
    )
    .addOption(
      new Option("--max-response-bytes <n>", "largest upstream response body; larger is 502")
        .default(defaults.maxResponseBytes)
        .argParser(integerFlag(1)),
    )
    .addOption(
      new Option(
        "--upstream-keep-alive-timeout <ms>",
        "how long an idle backend connection is kept; below the backend's own keep-alive timeout",
      )
        .default(defaults.upstreamKeepAliveTimeoutMs)
        .argParser(integerFlag(1)),
    )
    .addOption(
      new Option("--request-timeout <ms>", "time a caller has to send its whole request; then 408")
        .default(defaults.requestTimeoutMs)
        .argParser(integerFlag(1)),
    )
    .addOption(shutdownGrace)
    .addOption(shutdownTimeout)
    .addOption(
      new Option("--workers <n>", "processes serving the port (node:cluster); `auto`: one per core")
        .default(1)
        .argParser((value) => (value === "auto" ? availableParallelism() : integerFlag(1, 1024, "auto")(value))),
    )
    .addOption(new Option("--passthrough-unknown", "forward paths and methods the spec does not know, unvalidated"))
    .addOption(
      defaultText(
        new Option(
          "--cors-origins <origins>",
          "answer CORS at the gateway for these origins, comma-separated or repeated; * for any",
        ).argParser(origins),
        "none: preflights go to the backend",
      ),
    )
    .addOption(
      defaultText(
        new Option(
          "--record <file>",
          "record the resources the backend answers into this .yaml fixture file, for compute-stub --data (one worker)",
        ),
        "none",
      ),
    )
    .addOption(
      new Option(
        "--record-keys",
        "with --record: record each caller's API key as a user who sees what its answers showed (SHA-256 only)",
      ),
    )
    .addOption(logLevelOption());
  return commandLine(program, io, {
    ...epilogue,
    traces: true,
    renamed: {
      env: {
        UPSTREAM_URL: "--upstream",
        RECORD_FILE: "--record",
        ...formerServerVariables,
        ...unprefixed(
          "--response-validation",
          "--timeout-ms",
          "--max-body-bytes",
          "--max-response-bytes",
          "--upstream-keep-alive-timeout",
          "--request-timeout",
          "--workers",
          "--passthrough-unknown",
          "--cors-origins",
        ),
      },
    },
  });
}

/**
 * Parses arguments (without node and script) and process.env into a configuration; deprecation lines go to `io`'s
 * stderr. Throws CommanderError.
 */
export function parseCommandLine(args: string[], io: CliIo = processIo): CliConfig {
  const program = createProgram(io);
  type Durations = "upstreamKeepAliveTimeoutMs" | "requestTimeoutMs" | "shutdownGraceMs" | "shutdownTimeoutMs";
  const { upstreamKeepAliveTimeout, requestTimeout, shutdownGrace, shutdownTimeout, ...o } = parseFlags<
    Omit<CliConfig, "upstream" | "passthroughUnknown" | Durations> & {
      upstream: string;
      passthroughUnknown?: boolean;
      upstreamKeepAliveTimeout: number;
      requestTimeout: number;
      shutdownGrace: number;
      shutdownTimeout: number;
    }
  >(program, args, io.stderr);
  if (o.recordKeys && o.record === undefined) usageError(program, "--record-keys: give --record <file> too");
  if (o.record !== undefined) {
    // One process writes the recording, from answers it could check.
    const problem =
      recordFileProblem(o.record) ??
      (o.workers > 1 ? "it is written by one process: use it with --workers 1" : undefined) ??
      (o.responseValidation === "off"
        ? "it keeps only answers that pass the check: use it with --response-validation enforce or report"
        : undefined);
    if (problem) usageError(program, `--record: ${problem}`);
  }
  return {
    ...o,
    upstream: new URL(o.upstream),
    passthroughUnknown: o.passthroughUnknown === true,
    upstreamKeepAliveTimeoutMs: upstreamKeepAliveTimeout,
    requestTimeoutMs: requestTimeout,
    shutdownGraceMs: shutdownGrace,
    shutdownTimeoutMs: shutdownTimeout,
  };
}
