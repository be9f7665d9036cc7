/**
 * The stub process of the CommonJS `startStub` (`testing.cjs`): reads the options as one JSON line on stdin, starts
 * the stub with the ESM `startStub`, prints `{"url","apiKey"}` as one JSON line, and stops when its parent closes
 * stdin (the handle's close, or the parent's exit) or sends SIGTERM.
 */
import { createInterface } from "node:readline";
import { startStub } from "./testing.js";

const lines = createInterface({ input: process.stdin });
const first = await new Promise<string>((resolve) => lines.once("line", resolve));
const stub = await startStub(JSON.parse(first)).catch((error: Error) => {
  // The error's message (a FixtureError names each problem), not a stack trace, becomes the parent's rejection.
  process.stderr.write(`${error.message}\n`);
  process.exit(1);
});
process.stdout.write(`${JSON.stringify({ url: stub.url, apiKey: stub.apiKey })}\n`);
let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  await stub.close();
  process.exit(0);
};
lines.once("close", stop);
process.once("SIGTERM", stop);
