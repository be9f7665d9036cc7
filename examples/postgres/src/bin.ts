/** `compute-postgres`: runs the server until SIGINT or SIGTERM. */
import { runUntilSignal } from "@compute-api/server/cli";
import { runCli } from "./cli.js";

const { exitCode, server, shutdown } = await runCli(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
});
runUntilSignal("compute-postgres", server, exitCode, shutdown);
