/**
 * The CommonJS build of `@compute-api/stub-server/testing` (bundled to `dist/testing.cjs` at build), for test
 * runners that load packages with `require` (Jest's CommonJS mode on Node 20 and 22): `connectStub` is the ESM
 * build's own, and `startStub` runs the ESM build's `startStub` in a child Node process (`stub-child.js`), on
 * 127.0.0.1 and an ephemeral port, and returns the same handle over the admin API.
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { connectStub, type StubHandle } from "./connect-stub.js";
import type { StartStubOptions } from "./testing.js";

export * from "./connect-stub.js";

/** The options that cross to the child process: the ESM `startStub`'s, less those that are functions or objects of code. */
export type ChildStubOptions = Omit<StartStubOptions, "logger" | "baseline" | "spec">;

/** Starts the stub in a child process and resolves once it listens; rejects with the child's error output if it cannot. */
export function startStub(options: ChildStubOptions = {}): Promise<StubHandle> {
  const child = spawn(process.execPath, [join(__dirname, "stub-child.js")], { stdio: ["pipe", "pipe", "pipe"] });
  let stderr = "";
  let stdout = "";
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.stdin.write(`${JSON.stringify(options)}\n`);
  return new Promise((resolve, reject) => {
    const failed = (code: number | null) =>
      reject(new Error(`the stub's process exited (${code}) before listening: ${stderr.trim()}`));
    child.once("exit", failed);
    child.once("error", reject);
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
      const end = stdout.indexOf("\n");
      if (end < 0) return;
      child.off("exit", failed);
      child.stdout.removeAllListeners("data");
      const { url, apiKey } = JSON.parse(stdout.slice(0, end)) as { url: string; apiKey: string };
      const close = async () => {
        child.stdin.end();
        await exited;
      };
      resolve({ ...connectStub(url, { apiKey }), close });
    });
  });
}
