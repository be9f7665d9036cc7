/**
 * `@compute-api/server/cli`: the command line of servers shaped as compute-stub — the shared flags (`-p, --port`,
 * `--host`, `--api-key`, `--cors-origins`, `--compress`, `--log-level`, the drain's), the lines printed once
 * listening, tracing as the `OTEL_*` variables configure it, and running until SIGINT or SIGTERM. compute-stub and
 * examples/postgres's compute-postgres use it.
 */
export { startCommandTracing } from "./cli/command-tracing.js";
export { dataOptions } from "./cli/data-flags.js";
export { type ListeningOptions, listeningLines, type StartKey } from "./cli/listening-lines.js";
export {
  type CommandRun,
  type DrainingServer,
  type DrainTimes,
  drainTimesOf,
  runUntilSignal,
} from "./cli/run-until-signal.js";
export {
  parseServerFlags,
  type ServerCommandOptions,
  type ServerFlags,
  serverCommand,
} from "./cli/server-command.js";
