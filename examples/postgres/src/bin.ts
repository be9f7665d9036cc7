/** `compute-postgres`: runs the server until SIGINT or SIGTERM. */
import { instrumentPg } from "./tracing.js";

// Before anything loads `pg`: the rest of the program is imported after the instrumentation is registered.
await instrumentPg();
const { runUntilSignal } = await import("@compute-api/server/cli");
const { runCli } = await import("./cli.js");

runUntilSignal(
  "compute-postgres",
  runCli(process.argv.slice(2), {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
  }),
);
