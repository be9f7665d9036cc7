#!/usr/bin/env node
// compute-postgres: the example's command, run from the TypeScript sources (its own and the workspace packages')
// through tsx's command line, as `npm run example:postgres` does; no build step. Signals are passed on to it.
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { constants } from "node:os";
import { fileURLToPath } from "node:url";

const tsx = createRequire(import.meta.url).resolve("tsx/cli");
const bin = fileURLToPath(new URL("../src/bin.ts", import.meta.url));
const child = spawn(process.execPath, [tsx, "--conditions=@compute-api/source", bin, ...process.argv.slice(2)], {
  stdio: "inherit",
});
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => child.kill(signal));
child.on("exit", (code, signal) => process.exit(code ?? 128 + (signal ? constants.signals[signal] : 0)));
