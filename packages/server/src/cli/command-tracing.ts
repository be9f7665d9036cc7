/**
 * Tracing of a server's command: `startTracing` of `@compute-api/runtime/tracing`, named after the command
 * (`service.name` compute-stub, compute-postgres, unless `OTEL_SERVICE_NAME` says otherwise), called once the flags
 * are parsed and before the server is made. Without `OTEL_*` variables nothing is loaded; with them, every drain
 * flushes the spans before the command exits.
 */

import { createLogger } from "@compute-api/runtime";
import { type CliIo, exitCodes } from "@compute-api/runtime/cli";
import { startTracing, type Tracing, TracingConfigError } from "@compute-api/runtime/tracing";
import type { Command } from "commander";
import type { ServerFlags } from "./server-command.js";

/**
 * Starts tracing as the `OTEL_*` variables configure it; a variable that cannot be honoured
 * (`OTEL_EXPORTER_OTLP_PROTOCOL=grpc`) is said in one line on stderr and answered with the usage exit code (2).
 */
export async function startCommandTracing(
  command: Command,
  flags: Pick<ServerFlags, "logLevel">,
  io: CliIo,
): Promise<Tracing | number> {
  try {
    return await startTracing({
      serviceName: command.name(),
      ...(command.version() === undefined ? {} : { serviceVersion: command.version() as string }),
      logger: createLogger({ level: flags.logLevel }),
    });
  } catch (error) {
    if (!(error instanceof TracingConfigError)) throw error;
    io.stderr(`${command.name()}: ${error.message}\n`);
    return exitCodes.usage;
  }
}
