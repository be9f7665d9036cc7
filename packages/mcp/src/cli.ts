/** The command line of compute-mcp: flags, each also read from the environment, checked before start-up. */
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
import { Command, Option } from "commander";
import { isLoopback } from "./http.js";

/** What the command line and the environment decide. */
export interface CliConfig {
  baseUrl: string;
  /** COMPUTE_API_KEY: read from the environment only, so that it is never in a process list or a shell history. */
  apiKey: string;
  http: boolean;
  port: number;
  host: string;
  /** MCP_AUTH_TOKEN: what HTTP clients must send as `Authorization: Bearer …`. */
  authToken: string | undefined;
  allowedOrigins: string[] | undefined;
  timeoutMs: number;
  logLevel: string;
  shutdownGraceMs: number;
  shutdownTimeoutMs: number;
}

/** How the help ends: the environment's secrets, examples and what each exit status means. */
const epilogue = {
  examples: [
    "COMPUTE_API_KEY=cak_… compute-mcp --base-url http://127.0.0.1:4010      # stdio, as an agent host starts it",
    "COMPUTE_API_KEY=cak_… compute-mcp --base-url https://api.example.com --http   # Streamable HTTP on http://127.0.0.1:4030/mcp",
    "COMPUTE_API_KEY=cak_… MCP_AUTH_TOKEN=$(openssl rand -hex 32) compute-mcp --base-url http://127.0.0.1:8080 --http --host 0.0.0.0",
  ],
  exitStatus: {
    0: "stdin closed (stdio), or SIGINT or SIGTERM after draining (--http); or --help, --version",
    1: "it could not start (the port is taken)",
    2: "a flag or variable is invalid: no --base-url, no COMPUTE_API_KEY, or --http on a non-loopback host without MCP_AUTH_TOKEN",
  },
};

/** The commander program; exits through CommanderError instead of process.exit. */
export function createProgram(): Command {
  const [shutdownGrace, shutdownTimeout] = shutdownFlags() as [Option, Option];
  const program = new Command("compute-mcp")
    .description(
      "A Model Context Protocol server for the compute service: one tool per operation of its OpenAPI document, " +
        "called with the API key in COMPUTE_API_KEY. Over stdio by default; --http serves Streamable HTTP at /mcp, " +
        "where clients must send MCP_AUTH_TOKEN as a bearer token when it is set (required off loopback).",
    )
    .version(packageVersion(import.meta.url), "-V, --version", "print the version and exit")
    .addOption(
      defaultText(
        new Option("--base-url <url>", "the compute service's origin, without /v1, such as http://127.0.0.1:4010").env(
          "COMPUTE_BASE_URL",
        ),
        "none: required",
      ),
    )
    .addOption(new Option("--http", "serve Streamable HTTP instead of stdio"))
    .addOption(portOption(4030))
    .addOption(new Option("--host <host>", "address to listen on with --http").env("HOST").default("127.0.0.1"))
    .addOption(
      defaultText(
        new Option(
          "--allowed-origins <origins>",
          "browser origins allowed with --http besides loopback ones, comma-separated or repeated; * for any",
        )
          .env("ALLOWED_ORIGINS")
          .argParser(origins),
        "none",
      ),
    )
    .addOption(
      new Option("--timeout-ms <n>", "time one tool call may take, retries included")
        .env("TIMEOUT_MS")
        .default(30_000)
        .argParser(integerFlag(1)),
    )
    .addOption(logLevelOption())
    .addOption(shutdownGrace)
    .addOption(shutdownTimeout)
    .exitOverride()
    .showHelpAfterError(false);
  return describeCommand(program, epilogue);
}

/** Parses arguments (without node and script) and process.env into a configuration; throws CommanderError. */
export function parseCommandLine(args: string[]): CliConfig {
  const program = createProgram();
  program.parse(args, { from: "user" });
  const o = program.opts<{
    baseUrl?: string;
    http?: boolean;
    port: number;
    host: string;
    allowedOrigins?: string[];
    timeoutMs: number;
    logLevel: string;
    shutdownGrace: number;
    shutdownTimeout: number;
  }>();
  const usage = (message: string): never => program.error(`error: ${message}`, { exitCode: 2, code: "mcp.usage" });
  if (!o.baseUrl) usage("--base-url (or COMPUTE_BASE_URL) is required: the compute service's origin, without /v1");
  const apiKey = process.env.COMPUTE_API_KEY;
  if (!apiKey) usage("COMPUTE_API_KEY is not set: the API key compute-mcp calls the service with");
  const authToken = process.env.MCP_AUTH_TOKEN || undefined;
  if (o.http && !authToken && !isLoopback(o.host)) {
    usage(`--host ${o.host} is not a loopback address: set MCP_AUTH_TOKEN, which clients must then send`);
  }
  return {
    baseUrl: o.baseUrl as string,
    apiKey: apiKey as string,
    http: o.http === true,
    port: o.port,
    host: o.host,
    authToken,
    allowedOrigins: o.allowedOrigins,
    timeoutMs: o.timeoutMs,
    logLevel: o.logLevel,
    shutdownGraceMs: o.shutdownGrace,
    shutdownTimeoutMs: o.shutdownTimeout,
  };
}
