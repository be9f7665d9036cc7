/** The command line of compute-mcp: flags, each also read from its variable, checked before start-up. */
import {
  apiKeyOption,
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
  secretOption,
  serviceUrlOption,
  shutdownFlags,
  unprefixed,
  usageError,
} from "@compute-api/runtime/cli";
import { type Command, InvalidArgumentError, Option } from "commander";
import { type Host, hosts } from "./host-subsets.js";
import { isLoopback } from "./http.js";
import { generatedTools } from "./tools.js";

/** What the command line and the environment decide. */
export interface CliConfig {
  baseUrl: string;
  /** --api-key (COMPUTE_API_KEY): the key compute-mcp calls the service with. */
  apiKey: string;
  http: boolean;
  port: number;
  host: string;
  /** --auth-token: what HTTP clients must send as `Authorization: Bearer …`. */
  authToken: string | undefined;
  corsOrigins: string[] | undefined;
  /** --tools: the names of the tools to serve; undefined: every tool. */
  tools: string[] | undefined;
  /** --read-only: only the tools annotated read-only. */
  readOnly: boolean;
  /** --client: list the schemas within this host's subset; undefined: the full schemas. */
  client: Host | undefined;
  timeoutMs: number;
  logLevel: string;
  shutdownGraceMs: number;
  shutdownTimeoutMs: number;
}

/** How the help ends: examples and what each exit status means. */
const epilogue = {
  examples: [
    "COMPUTE_API_KEY=cak_… compute-mcp --base-url http://127.0.0.1:4010      # stdio, as an agent host starts it",
    "COMPUTE_API_KEY=cak_… compute-mcp --base-url https://api.example.com --http   # Streamable HTTP on http://127.0.0.1:4030/mcp",
    "COMPUTE_API_KEY=cak_… COMPUTE_MCP_AUTH_TOKEN=$(openssl rand -hex 32) compute-mcp --base-url http://127.0.0.1:8080 --http --host 0.0.0.0",
    "COMPUTE_API_KEY=cak_… compute-mcp --base-url http://127.0.0.1:4010 --read-only   # the search only",
    "COMPUTE_API_KEY=cak_… compute-mcp --base-url http://127.0.0.1:4010 --client openai   # schemas for OpenAI's strict mode",
  ],
  exitStatus: {
    0: "stdin closed (stdio), or SIGINT or SIGTERM after draining (--http); or --help, --version",
    1: "it could not start (the port is taken)",
    2: "a flag or variable is invalid: no --base-url, no --api-key, an unknown tool in --tools, no tool left, or --http on a non-loopback host without --auth-token",
  },
};

/** Names of `--tools`, comma-separated or repeated; an unknown one is refused, naming it and the tools there are. */
function toolNames(value: string, previous: string[] | undefined): string[] {
  const known = generatedTools().tools.map((t) => t.tool.name);
  const names = value
    .split(",")
    .map((name) => name.trim())
    .filter(Boolean);
  for (const name of names) {
    if (!known.includes(name))
      throw new InvalidArgumentError(`unknown tool '${name}'; the tools are ${known.join(", ")}.`);
  }
  return [...(previous ?? []), ...names];
}

/** The commander program, writing to `io`; exits through CommanderError instead of process.exit. */
export function createProgram(io: CliIo = processIo): Command {
  const [shutdownGrace, shutdownTimeout] = shutdownFlags() as [Option, Option];
  const program = new CliCommand("compute-mcp")
    .description(
      "A Model Context Protocol server for the compute service: one tool per operation of its OpenAPI document, " +
        "called with the API key of --api-key. Over stdio by default; --http serves Streamable HTTP at /mcp, " +
        "where clients must send --auth-token as a bearer token when it is set (required off loopback).",
    )
    .version(packageVersion(import.meta.url), "-V, --version", "print the version and exit")
    .addOption(
      required(
        serviceUrlOption(
          "--base-url <url>",
          "the compute service's origin, without /v1, such as http://127.0.0.1:4010",
        ),
        "the compute service's origin, without /v1",
      ),
    )
    .addOption(required(apiKeyOption("the key compute-mcp calls the service with; never printed"), "the service's key"))
    .addOption(new Option("--http", "serve Streamable HTTP instead of stdio"))
    .addOption(portOption(4030))
    .addOption(hostOption("address to listen on with --http"))
    .addOption(
      defaultText(
        secretOption(
          "--auth-token <token>",
          "with --http: the token clients must send as Authorization: Bearer <token>",
        ),
        "none (required off loopback)",
      ),
    )
    .addOption(
      defaultText(
        new Option(
          "--cors-origins <origins>",
          "browser origins allowed with --http besides loopback ones, comma-separated or repeated; * for any",
        ).argParser(origins),
        "none",
      ),
    )
    .addOption(
      defaultText(
        new Option("--tools <names>", "the tools to serve, comma-separated or repeated").argParser(toolNames),
        "every tool",
      ),
    )
    .addOption(new Option("--read-only", "serve only the tools annotated read-only (readOnlyHint)"))
    .addOption(
      defaultText(
        new Option(
          "--client <host>",
          "list the tools' schemas within this host's subset of JSON Schema (OpenAI's strict mode, Anthropic's strict tool use, Gemini's function declarations); calls are checked against the full schemas",
        ).choices(hosts),
        "the full schemas",
      ),
    )
    .addOption(
      new Option("--timeout-ms <n>", "time one tool call may take, retries included")
        .default(30_000)
        .argParser(integerFlag(1)),
    )
    .addOption(logLevelOption())
    .addOption(shutdownGrace)
    .addOption(shutdownTimeout);
  return commandLine(program, io, {
    ...epilogue,
    renamed: {
      env: {
        ...formerServerVariables,
        ...unprefixed("--timeout-ms"),
        ALLOWED_ORIGINS: "--cors-origins",
        MCP_AUTH_TOKEN: "--auth-token",
      },
      flags: { "--allowed-origins": "--cors-origins" },
    },
  });
}

/**
 * Parses arguments (without node and script) and process.env into a configuration; deprecation lines and warnings
 * go to `io`'s stderr. Throws CommanderError.
 */
export function parseCommandLine(args: string[], io: CliIo = processIo): CliConfig {
  const program = createProgram(io);
  const o = parseFlags<{
    baseUrl: string;
    apiKey: string;
    http?: boolean;
    port: number;
    host: string;
    authToken?: string;
    corsOrigins?: string[];
    tools?: string[];
    readOnly?: boolean;
    client?: Host;
    timeoutMs: number;
    logLevel: string;
    shutdownGrace: number;
    shutdownTimeout: number;
  }>(program, args, io.stderr);
  const authToken = o.authToken || undefined;
  if (o.http && !authToken && !isLoopback(o.host))
    usageError(program, `--host ${o.host} is not a loopback address: give --auth-token, which clients must then send`);
  const readOnly = o.readOnly === true;
  if (readOnly && o.tools) {
    const readOnlyTools = generatedTools()
      .tools.filter((t) => t.tool.annotations.readOnlyHint)
      .map((t) => t.tool.name);
    if (!o.tools.some((name) => readOnlyTools.includes(name)))
      usageError(program, `no tool left: --read-only leaves out ${o.tools.join(", ")}`);
  }
  return {
    baseUrl: o.baseUrl,
    apiKey: o.apiKey,
    http: o.http === true,
    port: o.port,
    host: o.host,
    authToken,
    corsOrigins: o.corsOrigins,
    tools: o.tools,
    readOnly,
    client: o.client,
    timeoutMs: o.timeoutMs,
    logLevel: o.logLevel,
    shutdownGraceMs: o.shutdownGrace,
    shutdownTimeoutMs: o.shutdownTimeout,
  };
}
