/**
 * The compute-stub command in a process of its own, on 127.0.0.1 and a free port: its event loop apart from the
 * test's, so that a test can see whether the stub keeps answering while it works (and is not held with it).
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { killGroup } from "@compute-api/test-support";
import { afterEach } from "vitest";

const bin = fileURLToPath(new URL("../../src/bin.ts", import.meta.url));

/** A running compute-stub command. */
export interface StubProcess {
  url: string;
  /** The key of its first user. */
  key: string;
  /** Its stdout so far (the listening lines, then the JSON log lines). */
  out(): string;
}

const started: number[] = [];
afterEach(() => {
  for (const pid of started.splice(0)) killGroup(pid);
});

/**
 * Starts compute-stub with `args` (after `--port 0 --api-key …`), Node flags `nodeArgs`; resolves once it listens.
 * It is killed after the test.
 */
export async function startStubProcess(args: string[] = [], nodeArgs: string[] = []): Promise<StubProcess> {
  const key = `cak_process-${Math.random().toString(36).slice(2)}`;
  const child = spawn(
    process.execPath,
    [...nodeArgs, "--conditions=@compute-api/source", "--import", "tsx", bin, "--port", "0", ...args],
    {
      env: { PATH: process.env.PATH, COMPUTE_API_KEY: key },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    },
  );
  started.push(child.pid ?? 0);
  let out = "";
  let err = "";
  child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (err += chunk.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on("data", () => {
      const match = /listening on (http:\/\/\S+) \(/.exec(out);
      if (match?.[1]) resolve(match[1]);
    });
    child.once("exit", (code) => reject(new Error(`compute-stub exited with ${code}: ${err}`)));
  });
  return { url, key, out: () => out };
}
