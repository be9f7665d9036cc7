#!/usr/bin/env node
/** compute-conformance: see `compute-conformance --help` and the package README. */
import { runCli } from "./cli.js";

process.exitCode = await runCli(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  tty: process.stderr.isTTY === true,
});
