/**
 * The five commands run as their users run them: each its own process, from its TypeScript sources, with an
 * environment of nothing but PATH and what a test gives (so that a variable of this machine's shell cannot move one),
 * and what each wrote.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { connect } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";

/** The commands and their entries. */
export const commands = {
  "compute-stub": "packages/stub-server/src/bin.ts",
  "compute-gateway": "packages/gateway/src/bin.ts",
  "compute-conformance": "packages/conformance/src/bin.ts",
  "compute-mcp": "packages/mcp/src/bin.ts",
  "compute-postgres": "examples/postgres/src/bin.ts",
} as const;

export type CommandName = keyof typeof commands;

/** A command's process, what it has written so far, and its exit. */
export interface Running {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Its exit status (or 128 + the signal's number, as a shell says it). */
  exit: Promise<number>;
}

const started = new Set<ChildProcess>();

/** Kills (SIGKILL) any process a test started and left running: one that failed before it stopped it. */
export function killStarted(): void {
  for (const child of started) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
}

/** Starts `command` with `args`; its environment is PATH and `env`; standard input is closed. */
export function start(command: CommandName, args: readonly string[], env: Record<string, string> = {}): Running {
  const bin = fileURLToPath(new URL(`../../${commands[command]}`, import.meta.url));
  const child = spawn(process.execPath, ["--conditions=@compute-api/source", "--import", "tsx", bin, ...args], {
    env: { PATH: process.env.PATH ?? "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  started.add(child);
  let out = "";
  let err = "";
  child.stdout?.on("data", (chunk: Buffer) => (out += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (err += chunk.toString()));
  const exit = new Promise<number>((resolve) =>
    child.once("close", (code, signal) => resolve(code ?? (signal === "SIGTERM" ? 143 : 128))),
  );
  return { child, stdout: () => out, stderr: () => err, exit };
}

/** Runs `command` to its end: its exit status and what it wrote. */
export async function run(
  command: CommandName,
  args: readonly string[],
  env: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const running = start(command, args, env);
  const code = await running.exit;
  return { code, stdout: running.stdout(), stderr: running.stderr() };
}

/** Polls `check` every 200 ms until it holds, at most `ms` (a bound for a busy machine, not a measure of speed). */
export async function until(check: () => boolean | Promise<boolean>, ms = 60_000): Promise<boolean> {
  for (const deadline = Date.now() + ms; Date.now() < deadline; await sleep(200)) if (await check()) return true;
  return check();
}

/** Whether something accepts a connection on 127.0.0.1:`port`. */
export function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

/**
 * Waits until 127.0.0.1:`port` accepts a connection (true) or the command exits first (false), polling; at most
 * `ms` (a bound for a machine that is busy, not a measure of speed).
 */
export async function listening(running: Running, port: number, ms = 150_000): Promise<boolean> {
  let exited = false;
  void running.exit.then(() => (exited = true));
  for (const deadline = Date.now() + ms; Date.now() < deadline && !exited; await sleep(200))
    if (await accepts(port)) return true;
  return false;
}

/** The lines a command wrote on standard error that are not JSON log lines (compute-mcp logs there). */
export const humanLines = (text: string): string[] =>
  text.split("\n").filter((line) => line !== "" && !line.startsWith("{"));
