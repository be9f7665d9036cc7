/**
 * Tracing of a server's command: `startTracing` of `@compute-api/runtime/tracing`, named after the command
 * (`service.name` compute-stub, compute-postgres, unless `OTEL_SERVICE_NAME` says otherwise), called once the flags
 * are parsed (which checked the `OTEL_*` variables: one that cannot be honoured is a usage error) and before the
 * server is made. Without `OTEL_*` variables nothing is loaded; with them, every drain flushes the spans before the
 * command exits.
 */
import { createLogger } from "@compute-api/runtime";
import { startTracing, type Tracing } from "@compute-api/runtime/tracing";
import type { Command } from "commander";
import type { ServerFlags } from "./server-command.js";

/** Starts tracing as the `OTEL_*` variables configure it. */
export function startCommandTracing(command: Command, flags: Pick<ServerFlags, "logLevel">): Promise<Tracing> {
  return startTracing({
    serviceName: command.name(),
    ...(command.version() === undefined ? {} : { serviceVersion: command.version() as string }),
    logger: createLogger({ level: flags.logLevel }),
  });
}
