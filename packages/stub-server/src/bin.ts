#!/usr/bin/env node
/** `compute-stub`: runs the stub server until SIGINT or SIGTERM. */
import { runCli } from "./cli.js";

const { exitCode, stub } = await runCli(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
});
if (!stub) process.exit(exitCode);

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    process.stdout.write(`compute-stub: ${signal}, shutting down\n`);
    void stub.close().then(() => process.exit(0));
  });
}
