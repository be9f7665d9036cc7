/** The compute-gateway command run from source in a child process, killed when the suite ends if it is still running. */
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterAll } from "vitest";

const bin = fileURLToPath(new URL("../../src/bin.ts", import.meta.url));

/** Every process the suite started; any still running when it ends (a test that timed out) is killed. */
const started: ChildProcess[] = [];
afterAll(() => {
  for (const child of started) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
});

/** How to run it besides its arguments. */
export interface RunOptions {
  /** Resolve once the output matches, the process still running. */
  until?: RegExp;
  /**
   * The largest file the process may write, in the shell's `ulimit -f` blocks (512 bytes in a POSIX shell, 1,024
   * in bash): a write past it fails with EFBIG, as one fails on a full disk with ENOSPC.
   */
  fileSizeBlocks?: number;
}

/** Runs the bin from source; resolves when it exits or prints a line matching `until`. */
export function runGateway(
  args: string[],
  env: Record<string, string> = {},
  { until, fileSizeBlocks }: RunOptions = {},
) {
  const command = [process.execPath, "--conditions", "@compute-api/source", "--import", "tsx", bin, ...args];
  const child =
    fileSizeBlocks === undefined
      ? spawn(command[0] as string, command.slice(1), {
          env: { ...process.env, ...env },
          stdio: ["ignore", "pipe", "pipe"],
        })
      : // tsx keeps its cache in memory: the limit is for the recording alone.
        spawn("sh", ["-c", 'ulimit -f "$FILE_SIZE_BLOCKS" && exec "$@"', "sh", ...command], {
          env: { ...process.env, ...env, FILE_SIZE_BLOCKS: String(fileSizeBlocks), TSX_DISABLE_CACHE: "1" },
          stdio: ["ignore", "pipe", "pipe"],
        });
  started.push(child);
  let output = "";
  const done = new Promise<{ code: number | null; output: string }>((resolve) => {
    const check = (chunk: Buffer) => {
      output += chunk.toString();
      if (until?.test(output)) resolve({ code: null, output });
    };
    child.stdout.on("data", check);
    child.stderr.on("data", check);
    child.on("exit", (code) => resolve({ code, output }));
  });
  return { child, done, output: () => output };
}
