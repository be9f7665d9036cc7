/** compute-mcp's start: the command line, the tool runner, then stdio or Streamable HTTP until told to stop. */
import { createServer } from "node:http";
import { createLogger, drainable, type Logger, onShutdownSignal } from "@compute-api/runtime";
import { parseOrExit } from "@compute-api/runtime/cli";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { type CliConfig, parseCommandLine } from "./cli.js";
import { createHttpHandler, isLoopback, mcpPath } from "./http.js";
import { createMcpServer } from "./server.js";
import { createToolRunner, type ToolRunner } from "./tool-runner.js";

/** Runs compute-mcp with the arguments (without node and script). */
export async function main(args: string[]): Promise<void> {
  const config = parseOrExit(() => parseCommandLine(args));
  if (!config) return;
  // In stdio mode standard output is the protocol's; every log line goes to standard error, in both modes alike.
  const logger = createLogger({ level: config.logLevel, destination: process.stderr });
  let runner: ToolRunner;
  try {
    runner = createToolRunner({
      baseUrl: config.baseUrl,
      apiKey: config.apiKey,
      timeoutMs: config.timeoutMs,
      logger,
      tools: config.tools,
      readOnly: config.readOnly,
      client: config.client,
    });
  } catch (error) {
    // The client's checks of the base URL: a TypeError that says what to give (it never quotes the key).
    process.stderr.write(`compute-mcp: error: ${(error as Error).message}\n`);
    process.exitCode = 2;
    return;
  }
  if (config.http) await serveHttp(config, runner, logger);
  else await serveStdio(runner, logger);
  // Done: the client's idle keep-alive connections to the service would otherwise hold the process for seconds.
  process.exit(process.exitCode ?? 0);
}

async function serveStdio(runner: ToolRunner, logger: Logger): Promise<void> {
  const server = createMcpServer(runner);
  const closed = new Promise<void>((resolve) => {
    server.onclose = resolve;
  });
  await server.connect(new StdioServerTransport());
  logger.info({ tools: runner.tools.length }, "compute-mcp serving over stdio");
  // The host ends a stdio server by closing its standard input.
  process.stdin.once("end", () => void server.close());
  await closed;
}

async function serveHttp(config: CliConfig, runner: ToolRunner, logger: Logger): Promise<void> {
  const server = createServer(
    createHttpHandler({
      runner,
      logger,
      authToken: config.authToken,
      loopback: isLoopback(config.host),
      allowedOrigins: config.corsOrigins,
    }),
  );
  const tracked = drainable(server);
  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(config.port, config.host, () => resolve());
    });
  } catch (error) {
    process.stderr.write(`compute-mcp: cannot start: ${(error as Error).message}\n`);
    process.exitCode = 1;
    return;
  }
  const { port } = server.address() as { port: number };
  const host = config.host.includes(":") ? `[${config.host}]` : config.host;
  logger.info(
    { url: `http://${host}:${port}${mcpPath}`, auth: config.authToken ? "bearer token" : "none (loopback only)" },
    "compute-mcp serving Streamable HTTP",
  );
  await new Promise<void>((resolve) => {
    onShutdownSignal(() => {
      tracked
        .drain({ graceMs: config.shutdownGraceMs, timeoutMs: config.shutdownTimeoutMs, logger })
        .then(resolve, resolve);
    }, logger);
  });
}
