/** What the benchmarks share: the processes they start on 127.0.0.1, each ended when the run is. */
import { type ChildProcess, spawn } from "node:child_process";
import { createServer } from "node:net";
import { fileURLToPath } from "node:url";

/** A path next to the bench scripts. */
export const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));

const children: ChildProcess[] = [];

/** The process id behind each origin the benchmark started, for scripts that read its CPU time. */
export const pidOf = new Map<string, number>();

/** A port that was free a moment ago, for the servers whose port is given on their command line. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/**
 * Starts a process (its output discarded, as a production log would go elsewhere), with `env` added to the
 * environment, and resolves once `url` answers.
 */
export async function start(name: string, args: string[], url: string, env: NodeJS.ProcessEnv = {}): Promise<string> {
  const child = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ["ignore", "ignore", "pipe"] });
  children.push(child);
  let err = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    err = (err + chunk.toString()).slice(-4000);
  });
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode}: ${err}`);
    try {
      await fetch(url);
      const { origin } = new URL(url);
      if (child.pid !== undefined) pidOf.set(origin, child.pid);
      return origin;
    } catch {
      if (Date.now() > deadline) throw new Error(`${name} did not answer at ${url} within 60 s: ${err}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}

/** Starts a bench script that prints `ready <port>` on stderr; resolves with its origin. */
export function startScript(script: string, args: string[] = []): Promise<string> {
  const child = spawn(process.execPath, ["--import", "tsx", here(script), ...args], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  children.push(child);
  return new Promise((resolve, reject) => {
    let err = "";
    child.stderr?.on("data", (chunk: Buffer) => {
      err += chunk.toString();
      const port = /ready (\d+)/.exec(err)?.[1];
      if (!port) return;
      if (child.pid !== undefined) pidOf.set(`http://127.0.0.1:${port}`, child.pid);
      resolve(`http://127.0.0.1:${port}`);
    });
    child.once("exit", (code) => reject(new Error(`${script} exited with ${code}: ${err}`)));
  });
}

/** Runs a benchmark, then ends every process it started (SIGTERM) and waits for them. */
export async function withProcesses(run: () => Promise<void>): Promise<void> {
  try {
    await run();
  } finally {
    await Promise.all(
      children.map(
        (child) =>
          new Promise((resolve) => {
            if (child.exitCode !== null) return resolve(undefined);
            child.once("exit", resolve);
            child.kill("SIGTERM");
          }),
      ),
    );
  }
}
