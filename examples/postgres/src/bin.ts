/** `compute-postgres`: runs the server until SIGINT or SIGTERM. */
import { runCli } from "./cli.js";

const { exitCode, server } = await runCli(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
});
if (!server) process.exit(exitCode);

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    process.stdout.write(`compute-postgres: ${signal}, shutting down\n`);
    void server.close().then(() => process.exit(0));
  });
}
