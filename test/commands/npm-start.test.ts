/**
 * `npm start` (the root package.json's `exec compute-stub`) stops with its npm: npm runs a script through `sh -c`
 * and forwards SIGTERM and SIGINT to that shell only, so a stub the shell merely started outlived an npm killed by
 * its process id, still holding its port. The script `exec`s the stub, which is then npm's own child: npm's SIGTERM
 * reaches it and it drains. Runs the stub of dist/, as `npm start` does.
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { isRunning } from "@compute-api/test-support";
import { afterAll, expect, it } from "vitest";
import { accepts, until } from "./support.js";

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
