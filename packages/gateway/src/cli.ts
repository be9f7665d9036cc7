/** The command line of compute-gateway: flags, each also read from the environment, checked before start-up. */
import { availableParallelism } from "node:os";
import type { ResponseValidationMode } from "@compute-api/contract";
import {
  defaultText,
  describeCommand,
  integerFlag,
  logLevelOption,
  origins,
  packageVersion,
  portOption,
  shutdownFlags,
} from "@compute-api/runtime/cli";
import { TracingConfigError, tracingConfig } from "@compute-api/runtime/tracing";
import { Command, InvalidArgumentError, Option } from "commander";
import { defaults, parseUpstreamUrl, upstreamRequired } from "./options.js";
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
}

const flag = (value: string | undefined, name: string): boolean => {
  if (value === undefined) return false;
  if (/^(1|true|yes|on)$/i.test(value)) return true;
  if (/^(0|false|no|off|)$/i.test(value)) return false;
  throw new InvalidArgumentError(`${name} must be true or false, not ${JSON.stringify(value)}`);
};

/** How the gateway's help ends: examples and what each exit status means. */
const epilogue = {
  examples: [
    "compute-gateway --upstream http://127.0.0.1:4010      # in front of compute-stub, on http://127.0.0.1:8080",
    "compute-gateway --upstream https://compute.internal --host 0.0.0.0 -p 8080 --workers auto",
    "UPSTREAM_URL=http://127.0.0.1:4011 compute-gateway --response-validation report",
    "compute-gateway --upstream https://compute.internal --record my-account.yaml   # then: compute-stub --data my-account.yaml",
    "OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4318 compute-gateway --upstream http://127.0.0.1:4010   # traces (README: Tracing)",
  ],
  exitStatus: {
    0: "stopped by SIGINT or SIGTERM after draining; or --help, --version",
    1: "it could not start (the port is taken, the spec does not compile)",
    2: "a flag or variable is invalid, or --upstream is missing",
  },
};

/** The commander program; exits through CommanderError instead of process.exit. */
export function createProgram(): Command {
  const [shutdownGrace, shutdownTimeout] = shutdownFlags() as [Option, Option];
  const program = new Command("compute-gateway")
    .description("A reverse proxy that holds a compute-api backend to the OpenAPI spec, requests and responses.")
    .version(packageVersion(import.meta.url), "-V, --version", "print the version and exit")
    .addOption(
      defaultText(
        new Option("--upstream <url>", "base URL of the backend, such as http://127.0.0.1:4010").env("UPSTREAM_URL"),
        "none: required",
      ),
    )
    .addOption(portOption(8080))
    .addOption(new Option("--host <host>", "address to listen on").env("HOST").default("127.0.0.1"))
    .addOption(
      new Option(
        "--response-validation <mode>",
        "enforce: non-conforming responses become 502; report: pass, flagged and logged; off",
      )
        .env("RESPONSE_VALIDATION")
        .choices(["enforce", "report", "off"])
        .default(defaults.responseValidation),
    )
    .addOption(
      new Option("--timeout-ms <n>", "time the backend has for its whole response")
        .env("TIMEOUT_MS")
        .default(defaults.timeoutMs)
        .argParser(integerFlag(1)),
    )
    .addOption(
      defaultText(
        new Option("--max-body-bytes <n>", "largest request body").env("MAX_BODY_BYTES").argParser(integerFlag(1)),
        `${defaults.maxBodyBytes} (the spec's x-max-request-body-bytes)`,
      ),
    )
    .addOption(
      new Option("--max-response-bytes <n>", "largest upstream response body; larger is 502")
        .env("MAX_RESPONSE_BYTES")
        .default(defaults.maxResponseBytes)
        .argParser(integerFlag(1)),
    )
    .addOption(
      new Option(
        "--upstream-keep-alive-timeout <ms>",
        "how long an idle backend connection is kept; below the backend's own keep-alive timeout",
      )
        .env("UPSTREAM_KEEP_ALIVE_TIMEOUT")
        .default(defaults.upstreamKeepAliveTimeoutMs)
        .argParser(integerFlag(1)),
    )
    .addOption(
      new Option("--request-timeout <ms>", "time a caller has to send its whole request; then 408")
        .env("REQUEST_TIMEOUT")
        .default(defaults.requestTimeoutMs)
        .argParser(integerFlag(1)),
    )
    .addOption(shutdownGrace)
    .addOption(shutdownTimeout)
    .addOption(
      new Option("--workers <n>", "processes serving the port (node:cluster); `auto`: one per core")
        .env("WORKERS")
        .default(1)
        .argParser((value) => (value === "auto" ? availableParallelism() : integerFlag(1, 1024, "auto")(value))),
    )
    .addOption(
      new Option(
        "--passthrough-unknown",
        "forward paths and methods the spec does not know, unvalidated (env: PASSTHROUGH_UNKNOWN=true)",
      ),
    )
    .addOption(
      defaultText(
        new Option(
          "--cors-origins <origins>",
          "answer CORS at the gateway for these origins, comma-separated or repeated; * for any",
        )
          .env("CORS_ORIGINS")
          .argParser(origins),
        "none: preflights go to the backend",
      ),
    )
    .addOption(
      defaultText(
        new Option(
          "--record <file>",
          "record the resources the backend answers into this .yaml fixture file, for compute-stub --data (one worker)",
        ).env("RECORD_FILE"),
        "none",
      ),
    )
    .addOption(logLevelOption())
    .exitOverride()
    .showHelpAfterError(false);
  return describeCommand(program, epilogue);
}

/** Parses arguments (without node and script) and process.env into a configuration; throws CommanderError. */
export function parseCommandLine(args: string[]): CliConfig {
  const program: Command = createProgram();
  program.parse(args, { from: "user" });
  type Durations = "upstreamKeepAliveTimeoutMs" | "requestTimeoutMs" | "shutdownGraceMs" | "shutdownTimeoutMs";
  const { upstreamKeepAliveTimeout, requestTimeout, shutdownGrace, shutdownTimeout, ...o } = program.opts<
    Omit<CliConfig, "upstream" | "passthroughUnknown" | Durations> & {
      upstream?: string;
      passthroughUnknown?: boolean;
      upstreamKeepAliveTimeout: number;
      requestTimeout: number;
      shutdownGrace: number;
      shutdownTimeout: number;
    }
  >();
  if (!o.upstream) program.error(`error: ${upstreamRequired}`, { exitCode: 2, code: "gateway.upstream" });
  let upstream: URL;
  try {
    // Checked here rather than by commander, whose message would quote the value as given, credentials and all.
    upstream = parseUpstreamUrl(o.upstream);
  } catch (error) {
    const from = program.getOptionValueSource("upstream") === "env" ? "UPSTREAM_URL" : "--upstream";
    program.error(`error: ${from}: ${(error as Error).message}`, { exitCode: 2, code: "gateway.upstream" });
  }
  let passthroughUnknown: boolean;
  try {
    passthroughUnknown = o.passthroughUnknown ?? flag(process.env.PASSTHROUGH_UNKNOWN, "PASSTHROUGH_UNKNOWN");
  } catch (error) {
    program.error(`error: ${(error as Error).message}`, { exitCode: 2, code: "gateway.passthrough" });
  }
  try {
    // The OTEL_* variables are read again where tracing starts (in each worker); checked once here.
    tracingConfig(process.env);
  } catch (error) {
    if (!(error instanceof TracingConfigError)) throw error;
    program.error(`error: ${error.message}`, { exitCode: 2, code: "gateway.tracing" });
  }
  if (o.record !== undefined) {
    // One process writes the recording, from answers it could check.
    const problem =
      recordFileProblem(o.record) ??
      (o.workers > 1 ? "it is written by one process: use it with --workers 1" : undefined) ??
      (o.responseValidation === "off"
        ? "it keeps only answers that pass the check: use it with --response-validation enforce or report"
        : undefined);
    if (problem) program.error(`error: --record: ${problem}`, { exitCode: 2, code: "gateway.record" });
  }
  return {
    ...o,
    upstream,
    passthroughUnknown,
    upstreamKeepAliveTimeoutMs: upstreamKeepAliveTimeout,
    requestTimeoutMs: requestTimeout,
    shutdownGraceMs: shutdownGrace,
    shutdownTimeoutMs: shutdownTimeout,
  };
}
