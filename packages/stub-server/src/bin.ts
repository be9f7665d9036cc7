#!/usr/bin/env node
/** `compute-stub`: runs the stub server until SIGINT or SIGTERM. */
import { runUntilSignal } from "@compute-api/server/cli";
import { runCli } from "./cli.js";

runUntilSignal(
  "compute-stub",
  runCli(process.argv.slice(2), {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
  }).then(({ exitCode, stub, shutdown }) => ({ exitCode, server: stub, shutdown })),
);
