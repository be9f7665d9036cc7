/**
 * `npm start` (the root package.json's `exec compute-stub`) stops with its npm: npm runs a script through `sh -c`
 * and forwards SIGTERM and SIGINT to that shell only, so a stub the shell merely started outlived an npm killed by
 * its process id, still holding its port. The script `exec`s the stub, which is then npm's own child: npm's SIGTERM
 * reaches it and it drains. Runs the stub of dist/, as `npm start` does.
 */
import { spawn } from "node:child_process";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { isRunning } from "@compute-api/test-support";
import { afterAll, expect, it } from "vitest";
import { accepts } from "./support.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const left: number[] = [];
afterAll(() => {
  for (const pid of left)
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // gone
    }
});

/** Polls `check` every 200 ms until it holds, at most `ms` (a bound for a busy machine, not a measure of speed). */
async function until(check: () => boolean | Promise<boolean>, ms = 60_000): Promise<boolean> {
  for (const deadline = Date.now() + ms; Date.now() < deadline; await sleep(200)) if (await check()) return true;
  return check();
}

it("a stub started with `npm start` stops when npm is killed by its process id (SIGTERM), and frees its port", async () => {
  const npm = spawn("npm", ["start", "--", "--port", "0", "--log-level", "silent"], {
    cwd: root,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  npm.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
  npm.stderr.on("data", (chunk: Buffer) => (out += chunk.toString()));
  const stopLine = /listening on http:\/\/127\.0\.0\.1:(\d+)[\s\S]*Stop it with Ctrl-C, or: kill (\d+)/;
  expect(await until(() => stopLine.test(out) || npm.exitCode !== null, 150_000), out).toBe(true);
  const [, port, pid] = stopLine.exec(out) ?? [];
  left.push(Number(pid));
  expect(await accepts(Number(port))).toBe(true);

  npm.kill("SIGTERM");
  expect(await until(() => !isRunning(Number(pid))), out).toBe(true);
  expect(await accepts(Number(port))).toBe(false);
  expect(out).toContain("compute-stub: SIGTERM, draining");
}, 240_000);
